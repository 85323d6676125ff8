import LiteRecord

/// The entity these tests store: an owner tag, so each test case can tell its
/// own rows from anyone else's.
final class Item: Entity, DefaultInitializable {
    var recordState = RecordState()
    var owner = ""
    var index = 0

    static let attributes = [
        AttributeDescription("owner", type: .string, options: [.indexed]),
        AttributeDescription("index", type: .int),
    ]

    init() {}
    init(owner: String, index: Int) {
        self.owner = owner
        self.index = index
    }

    init(row: Row) throws {
        owner = try row.decode(String.self, at: 0)
        index = try row.decode(Int.self, at: 1)
    }

    func encodeAttribute(at index: Int) throws -> SQLValue {
        index == 0 ? try AttributeCoding.encode(owner) : try AttributeCoding.encode(self.index)
    }

    func decodeAttribute(at index: Int, from row: Row) throws {
        if index == 0 { owner = try row.decode(String.self, at: 0) } else { self.index = try row.decode(Int.self, at: 1) }
    }
}
