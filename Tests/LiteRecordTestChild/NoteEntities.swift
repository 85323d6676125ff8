import Foundation
import LiteRecord

/// The notes the writing children save: the same entity, attribute for
/// attribute, as the `literecord demo`'s `Note` (Sources/LiteRecordCLI/DemoEntities.swift)
/// and the tests' `CLINote` (Tests/LiteRecordTests/Concurrency/MultiProcessTests.swift),
/// which open the stores these children write.
@Entity
final class Note {
    @Attribute(.indexed) var title = ""
    var body = ""
    var stars = 0
    var createdAt = Date()

    init() {}

    init(title: String, body: String = "", stars: Int = 0) {
        self.title = title
        self.body = body
        self.stars = stars
    }
}

/// A searchable note, for the full-text search crash test (`search-writer`).
@Entity(name: "SearchNote")
final class SearchNote {
    @Attribute(.searchable) var text = ""
    @Attribute(.searchable) var tags: String?
    var save = 0

    init() {}

    init(text: String, tags: String?, save: Int) {
        self.text = text
        self.tags = tags
        self.save = save
    }
}
