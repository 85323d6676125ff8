import Foundation
import LiteRecord

/// `Memo` as a writer declares it that never marked an attribute
/// `.preserveValueOnDeletion` (an older release, a widget): the same stored
/// schema, so it opens a `Memo` store without a migration.
@Entity(name: "Memo")
final class UndeclaredMemo {
    var serverID = ""
    var title = ""
    var stars = 0
    var body: String? = nil
    init() {}
}

/// A jotting, and the same entity renamed `Entry` in a later version.
enum Jottings {
    @Entity(name: "Jotting")
    final class Jotting {
        var text = ""
        init() {}
    }

    @Entity(name: "Entry", originalName: "Jotting")
    final class Entry {
        var text = ""
        init() {}
    }

    /// Scribbles, removed in the second version with their records.
    @Entity(name: "Scribble")
    final class Scribble {
        var text = ""
        init() {}
    }
}
