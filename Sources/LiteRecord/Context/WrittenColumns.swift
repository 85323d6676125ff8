/// What a `write` context's saves did to one row: the columns they updated
/// and how many times (each update advances the row's version by one).
struct WrittenColumns: Sendable {
    var columns = AttributeMask()
    var versions: Int64 = 0

    mutating func add(_ changes: AttributeMask) {
        columns.formUnion(changes)
        versions += 1
    }
}
