import Foundation
import LiteRecord

// A small library for predicates through relationships: a to-one chain
// (book → author → publisher), to-manys that read a foreign key backwards
// (publisher.authors, author.books) and a many-to-many (book.tags).

@Entity final class QPublisher {
    var name = ""
    var city: String?
    @Relationship(inverse: \QAuthor.publisher) var authors: [QAuthor] = []
    init() {}
}

@Entity final class QAuthor {
    var name = ""
    var nickname: String?
    var age = 0
    @Relationship var publisher: QPublisher?
    @Relationship(inverse: \QBook.author) var books: [QBook] = []
    init() {}
}

@Entity final class QBook {
    var title = ""
    var pages = 0
    @Relationship var author: QAuthor?
    @Relationship var tags: [QTag] = []
    init() {}
}

@Entity final class QTag {
    var label = ""
    @Relationship(inverse: \QBook.tags) var books: [QBook] = []
    init() {}
}

enum RelationshipQuerySeed {
    static let entities: [any Entity.Type] = [QPublisher.self, QAuthor.self, QBook.self, QTag.self]

    /// A stack holding publishers, authors and books with nil to-ones, empty
    /// to-manys, and canonically equivalent texts in both Unicode forms.
    static func stack() throws -> RecordStack {
        let stack = try RecordStack(inMemoryWith: entities)
        let context = stack.newContext()
        let publishers = [("Penguin", "London"), ("\u{C9}mile", nil), ("E\u{301}mile", "Paris"), ("Empty", nil)].map {
            name, city in
            let publisher = QPublisher()
            publisher.name = name
            publisher.city = city
            context.insert(publisher)
            return publisher
        }
        let authorNames = ["Ann", "Bob", "Zo\u{EB}", "Zoe\u{308}", "ann", "Cy", "Dee", "Ann", "Eve", "Fay", "", "K"]
        let authors = authorNames.enumerated().map { index, name in
            let author = QAuthor()
            author.name = name
            author.nickname = index % 3 == 0 ? nil : "n\(index % 4)"
            author.age = 20 + (index * 7) % 50
            // Every fourth author has no publisher; the last publisher has none.
            author.publisher = index % 4 == 3 ? nil : publishers[index % 3]
            context.insert(author)
            return author
        }
        let tags = ["sf", "classic", "caf\u{E9}", "cafe\u{301}", "unused"].map { label in
            let tag = QTag()
            tag.label = label
            context.insert(tag)
            return tag
        }
        let titles = ["Dune", "Emma", "dune", "Caf\u{E9}", "Cafe\u{301}", "Ulysses", "", "Dune"]
        for index in 0..<48 {
            let book = QBook()
            book.title = titles[index % titles.count]
            book.pages = (index * 37) % 400
            context.insert(book)
            // Authors 9 and 10 have no books; every fifth book has no author.
            if index % 5 != 4 {
                let candidates = [0, 1, 2, 3, 4, 5, 6, 7, 8, 11]
                book.author = authors[candidates[index % candidates.count]]
            }
            // Some books have no tags, some several; "unused" is on none.
            for (position, tag) in tags.prefix(4).enumerated() where (index + position) % (position + 2) == 0 {
                book.tags.append(tag)
            }
        }
        try context.save()
        return stack
    }
}
