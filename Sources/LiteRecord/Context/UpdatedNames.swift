/// The attribute and relationship names each updated record of a write
/// changed, as its history keeps them: every distinct list of names once,
/// sorted, and each record pointing at its list. An update of 100,000 rows
/// writing one attribute keeps one list and 100,000 small integers, not
/// 100,000 sets of strings (hashing those cost a history-recording update
/// more than the update itself). When every record wrote the same names
/// (``init(everyRecordWrote:)``), not even the integers are kept.
///
/// Asked only about records the write updated.
struct UpdatedNames {
    /// The distinct lists, each sorted and without repeats; list 0 is empty.
    private(set) var lists: [[String]] = [[]]
    private var indexes: [[String]: Int] = [[]: 0]
    /// The list of every record not in `byRecord`.
    private var common = 0
    private var byRecord: [RecordID: Int] = [:]

    init(reservingCapacity capacity: Int = 0) {
        byRecord.reserveCapacity(capacity)
    }

    /// Names for a write whose every updated record wrote `names` (records
    /// added later may add more).
    init(everyRecordWrote names: some Sequence<String>) {
        common = list(of: names)
    }

    /// The index of the list holding `names`, added when new.
    mutating func list(of names: some Sequence<String>) -> Int {
        let sorted = Set(names).sorted()
        if let index = indexes[sorted] { return index }
        indexes[sorted] = lists.count
        lists.append(sorted)
        return lists.count - 1
    }

    /// Records that the update of `id` wrote the names of list `list`,
    /// besides those already recorded for it.
    mutating func add(list: Int, to id: RecordID) {
        let existing = byRecord[id] ?? common
        guard existing != list else { return }
        byRecord[id] = existing == 0 ? list : self.list(of: lists[existing] + lists[list])
    }

    /// Records that the update of `id` wrote `names`, besides those already recorded for it.
    mutating func add(_ names: some Sequence<String>, to id: RecordID) {
        add(list: list(of: names), to: id)
    }

    /// The list of the names the update of `id` wrote.
    func list(for id: RecordID) -> Int {
        byRecord.isEmpty ? common : byRecord[id] ?? common
    }

    /// The names the update of `id` wrote, sorted.
    func names(for id: RecordID) -> [String] { lists[list(for: id)] }
}
