import Foundation
import LiteRecord

// Book → chapters → paragraphs, both `.cascade`, for the store-side cascade
// semantics: chapters also have quotes (`.deny`) and notes (`.nullify`, the
// note holding the key).

@Entity(name: "Book")
final class CSBook {
    var title = ""
    @Relationship(deleteRule: .cascade, inverse: \CSChapter.book)
    var chapters: [CSChapter] = []

    init() {}
    init(title: String) { self.title = title }
}

@Entity(name: "Chapter")
final class CSChapter {
    var title = ""
    @Relationship var book: CSBook?
    @Relationship(deleteRule: .cascade, inverse: \CSParagraph.chapter)
    var paragraphs: [CSParagraph] = []
    @Relationship(deleteRule: .deny, inverse: \CSQuote.chapter)
    var quotes: [CSQuote] = []
    @Relationship(deleteRule: .nullify, inverse: \CSNote.chapter)
    var notes: [CSNote] = []

    init() {}
    init(title: String) { self.title = title }
}

@Entity(name: "Paragraph")
final class CSParagraph {
    var text = ""
    @Relationship var chapter: CSChapter?

    init() {}
    init(text: String) { self.text = text }
}

@Entity(name: "Quote")
final class CSQuote {
    var text = ""
    @Relationship var chapter: CSChapter?

    init() {}
    init(text: String) { self.text = text }
}

@Entity(name: "Note")
final class CSNote {
    var text = ""
    @Relationship var chapter: CSChapter?

    init() {}
    init(text: String) { self.text = text }
}

let storeCascadeEntities: [any Entity.Type] = [
    CSBook.self, CSChapter.self, CSParagraph.self, CSQuote.self, CSNote.self,
]
