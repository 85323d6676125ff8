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

/// The demo's migration: version 1 of a chore, as an app shipped it…
@Entity(name: "Chore")
final class ChoreVersion1 {
    var title = ""
    var done = false

    init() {}

    init(title: String, done: Bool = false) {
        self.title = title
        self.done = done
    }
}

/// …and version 2: `title` renamed to `name`, `done` indexed, `priority`
/// added with a default and `due` added as an optional. Both map to the
/// entity "Chore", so version 2 opens the file version 1 wrote.
@Entity(name: "Chore")
final class Chore {
    @Attribute(originalName: "title") var name = ""
    @Attribute(.indexed) var done = false
    var priority = 0
    var due: Date?

    init() {}
}

/// The demo's relationship: an author's books go with her (`.cascade`)…
@Entity(name: "Author")
final class DemoAuthor {
    var name = ""
    @Relationship(deleteRule: .cascade, inverse: \DemoBook.author)
    var books: [DemoBook] = []

    init() {}
}

/// …and each book points back at its author: a foreign-key column.
@Entity(name: "Book")
final class DemoBook {
    var title = ""
    @Relationship var author: DemoAuthor?

    init() {}
}
