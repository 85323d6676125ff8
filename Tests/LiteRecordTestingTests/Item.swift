import LiteRecord

/// The entity these tests store: an owner tag, so each test case can tell its
/// own rows from anyone else's.
@Entity
final class Item {
    @Attribute(.indexed) var owner = ""
    var index = 0

    init() {}

    init(owner: String, index: Int) {
        self.owner = owner
        self.index = index
    }
}
