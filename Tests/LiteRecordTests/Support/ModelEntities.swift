import Foundation
import LiteRecord

// The graph of the model-based test (ModelBasedTests.swift): every delete
// rule of Docs/Relationships.md, on a to-many with a to-one inverse and on a
// many-to-many.
//
//   Book ──chapters (.cascade)──▶ Chapter ──paragraphs (.cascade)──▶ Paragraph
//     │                              └──quotes (.deny)──▶ Quote
//     ├──notes (.nullify, 1…)──▶ Note ◀──notes (.noAction)── Tag
//     └──tags (.nullify) ◀──▶ books (.deny, …2)── Tag           (many-to-many)
//
// Every entity has the attribute `text`. A note also holds a value of every
// other stored kind (ModelValues.swift: non-optional and optional `Int`,
// `Double` with −0.0 and ±1e300, a decomposed `String`, `Date`, `Data?`) and
// a `.unique` code. Book.chapters is counted (at most 3 chapters) and so is
// the many-to-many Tag.books (at most 2 books), per Docs/Relationships.md;
// Book.notes has a minimum (at least 1 note), which a note's deletion, a
// move, or the cascade of another book's one-to-one lead can break, and
// Tag.books is `.deny`: a delete rule on a many-to-many
// (a tag still linked to a book cannot be deleted).
//
// The widened schema's features: the one-to-one Book.lead (.cascade) ↔ Note.leadOf
// (.nullify), a column on each side; the self-referential Tag.parent ↔
// Tag.children (.cascade, through any depth; cycles end); a stored
// collection, Note.words ([String], JSON); and the `.searchable`
// Note.summary (ReferenceModel+Features.swift, ModelRunner+Features.swift).
//
// What this graph cannot generate: the store-side half of a cascade's
// counted lists. The
// store-side cascade (a `.cascade` to-many, not loaded, followed in SQL)
// runs for Book.chapters, Chapter.paragraphs and Tag.children; the rows it
// takes (chapters, paragraphs, tags) belong to no other owner whose counted
// list has a minimum — the only minimum is Book.notes, and a note is
// reached by a cascade only through the to-one Book.lead, which deletes it
// in memory. A deletion only lowers counts, so the maximums cannot break;
// and the far side of a doomed tag's links, Book.tags, is not counted.

@Entity(name: "MTBook")
final class MTBook {
    var text = ""
    @Relationship(deleteRule: .cascade, inverse: \MTChapter.book, maximumCount: 3) var chapters: [MTChapter] = []
    @Relationship(deleteRule: .nullify, inverse: \MTNote.book, minimumCount: 1) var notes: [MTNote] = []
    @Relationship(deleteRule: .nullify) var tags: [MTTag] = []
    // The widened schema's features (ModelEntities+Features.swift).
    @Relationship(deleteRule: .cascade, inverse: \MTNote.leadOf) var lead: MTNote?
    init() {}
}

@Entity(name: "MTChapter")
final class MTChapter {
    var text = ""
    @Relationship var book: MTBook?
    @Relationship(deleteRule: .cascade, inverse: \MTParagraph.chapter) var paragraphs: [MTParagraph] = []
    @Relationship(deleteRule: .deny, inverse: \MTQuote.chapter) var quotes: [MTQuote] = []
    init() {}
}

@Entity(name: "MTParagraph")
final class MTParagraph {
    var text = ""
    @Relationship var chapter: MTChapter?
    init() {}
}

@Entity(name: "MTQuote")
final class MTQuote {
    var text = ""
    @Relationship var chapter: MTChapter?
    init() {}
}

@Entity(name: "MTTag")
final class MTTag {
    var text = ""
    @Relationship(deleteRule: .deny, inverse: \MTBook.tags, maximumCount: 2) var books: [MTBook] = []
    @Relationship(deleteRule: .noAction, inverse: \MTNote.tag) var notes: [MTNote] = []
    // The widened schema's features (ModelEntities+Features.swift).
    @Relationship var parent: MTTag?
    @Relationship(deleteRule: .cascade, inverse: \MTTag.parent) var children: [MTTag] = []
    init() {}
}

@Entity(name: "MTNote")
final class MTNote {
    var text = ""
    var count: Int = 0
    var rank: Int?
    var score: Double = 0.0
    var label: String = ""
    var stamp: Date = Date(timeIntervalSince1970: 0)
    var blob: Data?
    @Attribute(.unique) var code: String?
    @Relationship var book: MTBook?
    @Relationship var tag: MTTag?
    // The widened schema's features (ModelEntities+Features.swift).
    var words: [String] = []
    @Attribute(.searchable) var summary: String = ""
    @Relationship var leadOf: MTBook?
    init() {}
}

let modelTestEntities: [any Entity.Type] = [
    MTBook.self, MTChapter.self, MTParagraph.self, MTQuote.self, MTTag.self, MTNote.self,
]
