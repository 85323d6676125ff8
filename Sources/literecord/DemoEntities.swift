import Foundation
import LiteRecord

/// The demo's entity: a plain final class; `@Entity` writes the rest.
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
