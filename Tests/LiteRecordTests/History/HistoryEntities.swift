import Foundation
import LiteRecord

/// A note whose deletion keeps its `serverID` and `title` in the history's tombstone.
@Entity(name: "Memo")
final class Memo {
    @Attribute(.preserveValueOnDeletion) var serverID = ""
    @Attribute(.preserveValueOnDeletion) var title = ""
    var stars = 0
    var body: String? = nil
    init() {}
    init(serverID: String, title: String, stars: Int = 0) {
        self.serverID = serverID
        self.title = title
        self.stars = stars
    }
}

/// A contact imported from JSON, matched by its `id`.
@Entity(name: "HistoryContact")
final class HistoryContact {
    @Attribute(.unique, importKey: "id") var identifier = 0
    var name = ""
    init() {}
}
