import Foundation
import LiteRecord
import PropertyBased

// The operations of the model-based test. An operation names its objects by
// "picks", numbers resolved when it runs (the pick modulo the candidates in
// id order), so that any subsequence of a sequence — what the shrinker
// tries — still runs.

/// A relationship read from one object.
enum MRead: Int, CaseIterable, Sendable, CustomStringConvertible {
    case bookChapters, bookNotes, bookTags, chapterParagraphs, chapterQuotes, tagBooks, tagNotes
    case chapterBook, paragraphChapter, quoteChapter, noteBook, noteTag
    /// The widened schema's features: Tag.children, and the to-ones Tag.parent, Book.lead, Note.leadOf.
    case tagChildren, tagParent, bookLead, noteLeadOf

    var owner: MKind {
        [
            .book, .book, .book, .chapter, .chapter, .tag, .tag, .chapter, .paragraph, .quote, .note, .note,
            .tag, .tag, .book, .note,
        ][rawValue]
    }
    /// The to-one behind it (the to-many's inverse); nil for the many-to-many.
    var link: MLink? {
        [
            .chapterBook, .noteBook, nil, .paragraphChapter, .quoteChapter, nil, .noteTag,
            .chapterBook, .paragraphChapter, .quoteChapter, .noteBook, .noteTag,
            .tagParent, .tagParent, .bookLead, .noteLeadOf,
        ][rawValue]
    }
    var isToOne: Bool { rawValue >= MRead.chapterBook.rawValue && self != .tagChildren }
    var description: String {
        [
            "Book.chapters", "Book.notes", "Book.tags", "Chapter.paragraphs", "Chapter.quotes", "Tag.books", "Tag.notes",
            "Chapter.book", "Paragraph.chapter", "Quote.chapter", "Note.book", "Note.tag",
            "Tag.children", "Tag.parent", "Book.lead", "Note.leadOf",
        ][rawValue]
    }
}

/// One step of a sequence, in the context under test unless it says otherwise.
enum MOp: Sendable, CustomStringConvertible {
    case create(MKind, target: UInt32?)
    case edit(MKind, UInt32)
    /// Sets a to-one, from the to-one side or (`viaToMany`) by appending to
    /// or removing from the target's to-many.
    case relate(MLink, UInt32, target: UInt32?, viaToMany: Bool)
    case link(book: UInt32, tag: UInt32, linked: Bool, fromTag: Bool)
    case delete(MKind, UInt32)
    case fetch(MKind)
    case read(MRead, UInt32)
    case save
    case rollback
    case refresh(MKind, UInt32, merge: Bool)
    /// A child context: these steps, then `save()` pushing them into the context.
    case child([MOp])
    /// `write {}` on the same stack: another context, saved at once.
    case write(MWrite)
    /// `reset()`: every object forgotten (Docs/Concurrency.md, ForgottenObjectTests).
    case reset
    /// Inserts again an object a `reset()` forgot: its save is refused with
    /// `.invalidObject` (an object of a cleaned-up stack refused; ForgottenObjectTests).
    case reinsertForgotten(UInt32)
    /// The context's `mergePolicy` changes mid-sequence (Docs/Concurrency.md).
    case policy(MergePolicy)
    /// A grandchild: these steps, pushed into a child and the child into the context.
    case grandchild([MOp])
    /// In a child only: a set-based operation, refused there (Docs/Queries.md,
    /// SetBasedChildRefusalTests): `deleteAll`, `truncateAll`,
    /// `findFirstOrCreate`, `updateAll` by the pick.
    case setBased(MKind, UInt32)
    /// `updateAll` of the text of every row of a kind, in the context under
    /// test (Docs/Queries.md, "Set-based updates").
    case updateAllHere(MKind)
    /// `deleteAll(matching:)` or `truncateAll()` of the paragraphs or notes
    /// (kinds nothing points at) in the context under test (Docs/Queries.md, "Deleting").
    case deleteAllHere(MKind, truncate: Bool)
    /// `MTNote.findFirstOrCreate(byAttribute: "code", withValue:)` in the context under test.
    case findOrCreateHere(code: UInt32)
    /// The steps of the widened model (ModelRunner+Merge.swift): merged
    /// writes into a main context, children of `write {}`, prefetching.
    case widened(MWideOp)
    /// The widened set-based steps (ModelOperations+Features.swift).
    case features(MFeatureOp)

    var description: String {
        switch self {
        case .create(let kind, let target): "create(\(kind), target: \(target.map(String.init) ?? "nil"))"
        case .edit(let kind, let pick): "edit(\(kind) \(pick))"
        case .relate(let link, let pick, let target, let via): "relate(\(link) \(pick) → \(target.map(String.init) ?? "nil")\(via ? ", via \(link.inverseName)" : ""))"
        case .link(let book, let tag, let linked, let fromTag): "\(linked ? "link" : "unlink")(Book \(book), Tag \(tag)\(fromTag ? ", from Tag.books" : ""))"
        case .delete(let kind, let pick): "delete(\(kind) \(pick))"
        case .fetch(let kind): "fetch(\(kind))"
        case .read(let read, let pick): "read(\(read) of \(pick))"
        case .save: "save"
        case .rollback: "rollback"
        case .refresh(let kind, let pick, let merge): "refresh(\(kind) \(pick), mergeChanges: \(merge))"
        case .child(let steps): "child[\(steps.map(\.description).joined(separator: "; "))]"
        case .write(let write): "write{\(write)}"
        case .reset: "reset"
        case .reinsertForgotten(let pick): "reinsertForgotten(\(pick))"
        case .policy(let policy): "mergePolicy = \(policy)"
        case .grandchild(let steps): "grandchild[\(steps.map(\.description).joined(separator: "; "))]"
        case .setBased(let kind, let pick): "setBased(\(kind), \(pick % 4))"
        case .updateAllHere(let kind): "updateAll(\(kind))"
        case .deleteAllHere(let kind, let truncate): "\(truncate ? "truncateAll" : "deleteAll")(\(kind))"
        case .findOrCreateHere(let code): "findFirstOrCreate(Note.code \(code))"
        case .widened(let op): op.description
        case .features(let op): op.description
        }
    }
}

/// What another context's `write {}` does. It changes rows in ways whose
/// outcome the contract fixes whatever the context under test loaded: text
/// edits (no relationship changes), new rows under objects the context under
/// test does not hold, and deleting a paragraph (nothing points at one).
enum MWrite: Sendable, CustomStringConvertible {
    case edit(MKind, UInt32)
    /// `updateAll`: the text of every row of a kind, in one statement.
    case updateAll(MKind)
    case create(MKind, target: UInt32?)
    case deleteParagraph(UInt32)
    /// `deleteAll(matching:)` or `truncateAll()` of the paragraphs or notes
    /// (kinds nothing points at).
    case deleteAll(MKind, truncate: Bool)
    /// `MTNote.findFirstOrCreate(byAttribute: "code", withValue:)`.
    case findOrCreate(code: UInt32)
    /// Moves a note the context under test never read to another book it never read.
    case relink(note: UInt32, book: UInt32)

    var description: String {
        switch self {
        case .deleteAll(let kind, let truncate): "\(truncate ? "truncateAll" : "deleteAll")(\(kind))"
        case .findOrCreate(let code): "findFirstOrCreate(Note.code \(code))"
        case .relink(let note, let book): "relink(Note \(note) → Book \(book))"

        case .edit(let kind, let pick): "edit(\(kind) \(pick))"
        case .updateAll(let kind): "updateAll(\(kind))"
        case .create(let kind, let target): "create(\(kind), target: \(target.map(String.init) ?? "nil"))"
        case .deleteParagraph(let pick): "delete(Paragraph \(pick))"
        }
    }
}

/// A sequence: the merge policy of the context under test and its steps.
struct MSequence: Sendable, CustomStringConvertible {
    var policy: MergePolicy
    var ops: [MOp]
    /// Whether the stack records history (Docs/History.md), compared after every step.
    var history = false
    /// Whether the context under test is a main context, which `write {}`
    /// merges into (ModelRunner+Merge.swift).
    var main = false
    var description: String {
        "policy \(policy)\(history ? ", history on" : "")\(main ? ", main context" : "")\n" + ops.enumerated().map { "  \($0.offset): \($0.element)" }.joined(separator: "\n")
    }
}

enum MGenerator {
    static func pick(_ rng: inout Xoshiro) -> UInt32 { UInt32.random(in: 0..<64, using: &rng) }

    static func kind(_ rng: inout Xoshiro) -> MKind { MKind.allCases.randomElement(using: &rng) ?? .book }

    static func sequence(_ rng: inout Xoshiro, maxLength: Int) -> MSequence {
        let policy = [MergePolicy.error, .objectTrumps, .storeTrumps].randomElement(using: &rng) ?? .error
        let count = Int.random(in: 1...maxLength, using: &rng)
        let history = Int.random(in: 0..<4, using: &rng) == 0
        var sequence = MSequence(policy: policy, ops: (0..<count).map { _ in op(&rng, inChild: false) }, history: history)
        widen(&sequence, &rng)
        widenCodes(&sequence, &rng)
        widenDeleteAll(&sequence, &rng)
        forcePolicy(&sequence)
        return sequence
    }

    static func op(_ rng: inout Xoshiro, inChild: Bool) -> MOp {
        let roll = Int.random(in: 0..<100, using: &rng)
        switch roll {
        case 0..<8: return .create(kind(&rng), target: Bool.random(using: &rng) ? pick(&rng) : nil)
        case 8..<18: return .edit(kind(&rng), pick(&rng))
        case 18..<28:
            let link = MLink.allCases.randomElement(using: &rng) ?? .chapterBook
            let target: UInt32? = Int.random(in: 0..<5, using: &rng) == 0 ? nil : pick(&rng)
            return .relate(link, pick(&rng), target: target, viaToMany: Bool.random(using: &rng))
        case 28..<33: return .link(book: pick(&rng), tag: pick(&rng), linked: Int.random(in: 0..<3, using: &rng) > 0, fromTag: Bool.random(using: &rng))
        case 33..<43: return .delete(kind(&rng), pick(&rng))
        case 43..<53: return .fetch(kind(&rng))
        case 53..<61: return .read(MRead.allCases.randomElement(using: &rng) ?? .bookChapters, pick(&rng))
        default: break
        }
        if inChild { return roll < 66 ? .setBased(kind(&rng), pick(&rng)) : .fetch(kind(&rng)) }
        switch roll {
        case 61..<74: return .save
        case 74..<77: return .rollback
        case 77..<80: return .refresh(kind(&rng), pick(&rng), merge: Bool.random(using: &rng))
        case 80..<81: return Bool.random(using: &rng) ? .reset : .reinsertForgotten(pick(&rng))
        case 81..<82: return .policy([MergePolicy.error, .objectTrumps, .storeTrumps].randomElement(using: &rng) ?? .error)
        case 82..<89:
            let steps = (0..<Int.random(in: 1...3, using: &rng)).map { _ in op(&rng, inChild: true) }
            return Int.random(in: 0..<4, using: &rng) == 0 ? .grandchild(steps) : .child(steps)
        default:
            switch Int.random(in: 0..<11, using: &rng) {
            case 9, 10: return .features(MFeatureOp.random(&rng))
            case 0, 1: return .write(.edit(kind(&rng), pick(&rng)))
            case 2: return .write(.create(kind(&rng), target: pick(&rng)))
            case 3:
                let kind = kind(&rng)
                return Bool.random(using: &rng) ? .write(.updateAll(kind)) : .updateAllHere(kind)
            case 4: return .write(.deleteParagraph(pick(&rng)))
            case 5:
                let kind: MKind = Bool.random(using: &rng) ? .paragraph : .note
                let truncate = Bool.random(using: &rng)
                return Bool.random(using: &rng) ? .write(.deleteAll(kind, truncate: truncate)) : .deleteAllHere(kind, truncate: truncate)
            case 6:
                let code = pick(&rng)
                return Bool.random(using: &rng) ? .write(.findOrCreate(code: code)) : .findOrCreateHere(code: code)
            default: return .write(.relink(note: pick(&rng), book: pick(&rng)))
            }
        }
    }
}
