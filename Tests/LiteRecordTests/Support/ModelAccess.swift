import Foundation
@testable import LiteRecord

// Typed access to the model-based test's entities (ModelEntities.swift) by
// kind and relationship, so that the runner can treat them alike.

protocol MTTextual: AnyObject {
    var text: String { get set }
}

extension MTBook: MTTextual {}
extension MTChapter: MTTextual {}
extension MTParagraph: MTTextual {}
extension MTQuote: MTTextual {}
extension MTTag: MTTextual {}
extension MTNote: MTTextual {}

enum ModelAccess {
    private static func up<T: Entity>(_ list: [T]?) -> [any Entity] { (list ?? []).map { $0 as any Entity } }
    private static func up<T: Entity>(_ object: T?) -> (any Entity)? { object.map { $0 as any Entity } }

    static func kind(of object: any Entity) -> MKind? {
        switch object {
        case is MTBook: .book
        case is MTChapter: .chapter
        case is MTParagraph: .paragraph
        case is MTQuote: .quote
        case is MTTag: .tag
        case is MTNote: .note
        default: nil
        }
    }

    static func kind(named name: String) -> MKind? { MKind.allCases.first { $0.entityName == name } }

    static func make(_ kind: MKind) -> any Entity {
        switch kind {
        case .book: MTBook() as any Entity
        case .chapter: MTChapter() as any Entity
        case .paragraph: MTParagraph() as any Entity
        case .quote: MTQuote() as any Entity
        case .tag: MTTag() as any Entity
        case .note: MTNote() as any Entity
        }
    }

    static func text(_ object: any Entity) -> String { (object as? any MTTextual)?.text ?? "<not a model entity>" }

    static func setText(_ object: any Entity, _ text: String) { (object as? any MTTextual)?.text = text }

    /// A note's other values (ModelValues.swift); the defaults for any other object.
    static func values(_ object: any Entity) -> MValues {
        guard let note = object as? MTNote else { return MValues() }
        return MValues(
            count: note.count, rank: note.rank, score: note.score, label: note.label, stamp: note.stamp, blob: note.blob, code: note.code, words: note.words, summary: note.summary)
    }

    static func setValues(_ object: any Entity, _ values: MValues) {
        guard let note = object as? MTNote else { return }
        note.count = values.count
        note.rank = values.rank
        note.score = values.score
        note.label = values.label
        note.stamp = values.stamp
        note.blob = values.blob
        note.code = values.code
        note.words = values.words
        note.summary = values.summary
    }

    /// `deleteAll(matching:)` of every row of `kind`, or `truncateAll`, the
    /// delete rules applied; returns how many rows of `kind` it deleted.
    static func deleteAll(_ kind: MKind, truncate: Bool, in context: RecordContext) throws -> Int {
        switch (kind, truncate) {
        case (.book, false): try MTBook.deleteAll(matching: #Predicate { $0.text != "~" }, in: context)
        case (.book, true): try MTBook.truncateAll(in: context)
        case (.chapter, false): try MTChapter.deleteAll(matching: #Predicate { $0.text != "~" }, in: context)
        case (.chapter, true): try MTChapter.truncateAll(in: context)
        case (.paragraph, false): try MTParagraph.deleteAll(matching: #Predicate { $0.text != "~" }, in: context)
        case (.paragraph, true): try MTParagraph.truncateAll(in: context)
        case (.quote, false): try MTQuote.deleteAll(matching: #Predicate { $0.text != "~" }, in: context)
        case (.quote, true): try MTQuote.truncateAll(in: context)
        case (.tag, false): try MTTag.deleteAll(matching: #Predicate { $0.text != "~" }, in: context)
        case (.tag, true): try MTTag.truncateAll(in: context)
        case (.note, false): try MTNote.deleteAll(matching: #Predicate { $0.text != "~" }, in: context)
        case (.note, true): try MTNote.truncateAll(in: context)
        }
    }

    /// `MTNote.findFirstOrCreate(byAttribute: "code", withValue:)`.
    static func findOrCreateNote(code: String, in context: RecordContext) throws -> any Entity {
        try MTNote.findFirstOrCreate(byAttribute: "code", withValue: code, in: context)
    }

    /// Sets `text` in every stored row of `kind` not holding it, with one
    /// set-based update; returns how many rows it wrote.
    static func updateAllText(_ kind: MKind, _ text: String, in context: RecordContext) throws -> Int {
        switch kind {
        case .book: try MTBook.updateAll(matching: #Predicate { $0.text != text }, set: \.text, to: text, in: context)
        case .chapter: try MTChapter.updateAll(matching: #Predicate { $0.text != text }, set: \.text, to: text, in: context)
        case .paragraph: try MTParagraph.updateAll(matching: #Predicate { $0.text != text }, set: \.text, to: text, in: context)
        case .quote: try MTQuote.updateAll(matching: #Predicate { $0.text != text }, set: \.text, to: text, in: context)
        case .tag: try MTTag.updateAll(matching: #Predicate { $0.text != text }, set: \.text, to: text, in: context)
        case .note: try MTNote.updateAll(matching: #Predicate { $0.text != text }, set: \.text, to: text, in: context)
        }
    }

    static func fetchAll(_ kind: MKind, in context: RecordContext) throws -> [any Entity] {
        switch kind {
        case .book: up(try MTBook.findAll(in: context))
        case .chapter: up(try MTChapter.findAll(in: context))
        case .paragraph: up(try MTParagraph.findAll(in: context))
        case .quote: up(try MTQuote.findAll(in: context))
        case .tag: up(try MTTag.findAll(in: context))
        case .note: up(try MTNote.findAll(in: context))
        }
    }

    static func find(_ kind: MKind, row: Int64, in context: RecordContext) throws -> (any Entity)? {
        switch kind {
        case .book: up(try MTBook.find(rowID: row, in: context))
        case .chapter: up(try MTChapter.find(rowID: row, in: context))
        case .paragraph: up(try MTParagraph.find(rowID: row, in: context))
        case .quote: up(try MTQuote.find(rowID: row, in: context))
        case .tag: up(try MTTag.find(rowID: row, in: context))
        case .note: up(try MTNote.find(rowID: row, in: context))
        }
    }

    /// Reads a to-one (loading it when needed).
    static func target(of object: any Entity, _ link: MLink) -> (any Entity)? {
        switch link {
        case .chapterBook: up((object as? MTChapter)?.book)
        case .paragraphChapter: up((object as? MTParagraph)?.chapter)
        case .quoteChapter: up((object as? MTQuote)?.chapter)
        case .noteBook: up((object as? MTNote)?.book)
        case .noteTag: up((object as? MTNote)?.tag)
        case .tagParent: up((object as? MTTag)?.parent)
        case .bookLead: up((object as? MTBook)?.lead)
        case .noteLeadOf: up((object as? MTNote)?.leadOf)
        }
    }

    static func setTarget(_ object: any Entity, _ link: MLink, _ target: (any Entity)?) {
        switch link {
        case .chapterBook: (object as? MTChapter)?.book = target as? MTBook
        case .paragraphChapter: (object as? MTParagraph)?.chapter = target as? MTChapter
        case .quoteChapter: (object as? MTQuote)?.chapter = target as? MTChapter
        case .noteBook: (object as? MTNote)?.book = target as? MTBook
        case .noteTag: (object as? MTNote)?.tag = target as? MTTag
        case .tagParent: (object as? MTTag)?.parent = target as? MTTag
        case .bookLead: (object as? MTBook)?.lead = target as? MTNote
        case .noteLeadOf: (object as? MTNote)?.leadOf = target as? MTBook
        }
    }

    /// Reads a to-many (loading it when needed).
    static func members(of object: any Entity, _ read: MRead) -> [any Entity] {
        switch read {
        case .bookChapters: up((object as? MTBook)?.chapters)
        case .bookNotes: up((object as? MTBook)?.notes)
        case .bookTags: up((object as? MTBook)?.tags)
        case .chapterParagraphs: up((object as? MTChapter)?.paragraphs)
        case .chapterQuotes: up((object as? MTChapter)?.quotes)
        case .tagBooks: up((object as? MTTag)?.books)
        case .tagNotes: up((object as? MTTag)?.notes)
        case .tagChildren: up((object as? MTTag)?.children)
        default: target(of: object, read.link ?? .chapterBook).map { [$0] } ?? []
        }
    }

    /// Adds `member` to (or removes it from) `owner`'s to-many that is the inverse of `link`.
    static func change(_ owner: any Entity, _ link: MLink, _ member: any Entity, adding: Bool) {
        func edit<T: AnyObject>(_ list: inout [T], _ member: T) {
            if adding { list.append(member) } else { list.removeAll { $0 === member } }
        }
        switch link {
        case .chapterBook: if let owner = owner as? MTBook, let member = member as? MTChapter { edit(&owner.chapters, member) }
        case .paragraphChapter: if let owner = owner as? MTChapter, let member = member as? MTParagraph { edit(&owner.paragraphs, member) }
        case .quoteChapter: if let owner = owner as? MTChapter, let member = member as? MTQuote { edit(&owner.quotes, member) }
        case .noteBook: if let owner = owner as? MTBook, let member = member as? MTNote { edit(&owner.notes, member) }
        case .noteTag: if let owner = owner as? MTTag, let member = member as? MTNote { edit(&owner.notes, member) }
        case .tagParent: if let owner = owner as? MTTag, let member = member as? MTTag { edit(&owner.children, member) }
        // A one-to-one has no list: its other side is set.
        case .bookLead, .noteLeadOf: setTarget(owner, link == .bookLead ? .noteLeadOf : .bookLead, adding ? member : nil)
        }
    }

    static func setLinked(book: any Entity, tag: any Entity, _ linked: Bool, fromTag: Bool) {
        guard let book = book as? MTBook, let tag = tag as? MTTag else { return }
        if fromTag {
            if linked { tag.books.append(book) } else { tag.books.removeAll { $0 === book } }
        } else {
            if linked { book.tags.append(tag) } else { book.tags.removeAll { $0 === tag } }
        }
    }

    /// The row a to-one names, read from the object's slot when it holds the
    /// stored key (a fresh fetch does), so that reading the store back does
    /// not load each target with a statement of its own.
    static func storedTarget(of object: any Entity, _ link: MLink) -> Int64? {
        let name = link.description.split(separator: ".").last.map(String.init) ?? ""
        if let index = type(of: object).relationships.firstIndex(where: { $0.name == name }),
            case .fault(let row) = RelationGraph.slot(object, index)
        {
            return row
        }
        return target(of: object, link)?.recordID?.rowID
    }

    /// Every row's version column, read through a fresh context.
    static func readVersions(_ stack: RecordStack) throws -> [MID: Int64] {
        let context = stack.newContext()
        var versions: [MID: Int64] = [:]
        for kind in MKind.allCases {
            let sql = "SELECT \(SQLIdentifier.quote(Model.primaryKeyColumn)), \(SQLIdentifier.quote(Model.versionColumn)) FROM \(SQLIdentifier.quote(kind.entityName))"
            let rows = try context.reading("reading versions") { connection in try connection.rows(sql) }
            for row in rows {
                guard row.count == 2, case .integer(let id) = row[0], case .integer(let version) = row[1] else { continue }
                versions[MID(kind: kind, row: id)] = version
            }
        }
        return versions
    }

    /// Everything the store holds, read through a fresh context.
    static func readStore(_ stack: RecordStack) throws -> (rows: [MID: MRow], joins: Set<MPair>) {
        let context = stack.newContext()
        var rows: [MID: MRow] = [:]
        var joins: Set<MPair> = []
        for kind in MKind.allCases {
            for object in try fetchAll(kind, in: context) {
                guard let row = object.recordID?.rowID else { continue }
                var stored = MRow(text: text(object), values: values(object))
                for link in MLink.holding(kind) {
                    if let target = storedTarget(of: object, link) { stored.fk[link] = target }
                }
                rows[MID(kind: kind, row: row)] = stored
                if kind == .book, let book = object as? MTBook {
                    for tag in book.tags { if let tagRow = tag.recordID?.rowID { joins.insert(MPair(book: row, tag: tagRow)) } }
                }
            }
        }
        return (rows, joins)
    }
}
