import Foundation
import LiteRecord

// Docs/Relationships.md's example, declared with the macro.

@Entity(name: "Author")
final class MAuthor {
    var name = ""
    @Relationship(deleteRule: .cascade, inverse: \MBook.author)
    var books: [MBook] = []

    init() {}
    init(name: String) { self.name = name }
}

@Entity(name: "Book")
final class MBook {
    var title = ""
    @Relationship var author: MAuthor?
    @Relationship(deleteRule: .nullify) var tags: [MTag] = []

    init() {}
    init(title: String, author: MAuthor? = nil) {
        self.title = title
        self.author = author
    }
}

@Entity(name: "Tag")
final class MTag {
    var label = ""
    @Relationship(inverse: \MBook.tags) var books: [MBook] = []

    init() {}
    init(label: String) { self.label = label }
}

/// Assigns a relationship before its own stored properties are initialized:
/// the value waits in the generated storage until the object is used.
@Entity(name: "Chapter")
final class MChapter {
    var number: Int
    @Relationship(maximumCount: 2) var pages: [MPage]

    init(number: Int, pages: [MPage]) {
        self.pages = pages
        self.number = number
    }
}

@Entity(name: "Page")
final class MPage {
    var text = ""
    @Relationship var chapter: MChapter?
    init() {}
}
