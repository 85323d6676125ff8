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
