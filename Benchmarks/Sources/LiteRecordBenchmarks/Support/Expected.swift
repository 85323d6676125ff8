/// What each workload must read or leave behind, computed from the generator
/// alone: the reference every engine's checksum is compared with.
enum Expected {
    static func checksum(_ workload: Workload, count: Int) -> String {
        var checksum = Checksum()
        switch workload {
        case .concurrent:
            return Checksum.verified.text
        case .launch:
            return LaunchQuery.expected(count: count).text
        case .insert, .insertBuilt, .fetch, .enumerate, .memory, .memoryPlain:
            for index in 0..<count { checksum.add(Dataset.row(index)) }
        case .memoryUser:
            for index in 0..<count { checksum.add(Dataset.userRow(index)) }
        case .update:
            for index in 0..<count {
                var row = Dataset.row(index)
                row.score = Dataset.updatedScore(row.score)
                checksum.add(row)
            }
        case .delete, .open:
            break
        case .relFetch, .relWalk, .relCascade:
            return LibrarySchema.expected(workload, authors: count).text
        case .query:
            let rows = Dataset.rows(count)
            var byAge: [Int: [ItemValues]] = [:]
            for row in rows { byAge[row.age, default: []].append(row) }
            for lower in Dataset.queryLowerBounds() {
                let matches = (lower...(lower + 2)).flatMap { byAge[$0] ?? [] }
                // Names are ASCII, so Swift's order is SQLite's BINARY order.
                for row in matches.sorted(by: { $0.name < $1.name }).prefix(100) { checksum.add(row) }
            }
        }
        return checksum.text
    }
}
