import Foundation
@testable import LiteRecord

// Fetches that prefetch a relationship (Docs/Relationships.md:
// `relationshipKeyPathsForPrefetching` "loads them for every fetched object
// in one statement per relationship"), compared with the model.

extension ModelAccess {
    /// Every object of the relationship's owner kind, fetched with the
    /// relationship prefetched.
    static func fetchPrefetching(_ read: MRead, in context: RecordContext) throws -> [any Entity] {
        func fetch<T: Entity>(_ path: any PartialKeyPath<T> & Sendable) throws -> [any Entity] {
            try context.fetch(FetchRequest<T>(relationshipKeyPathsForPrefetching: [path])).map { $0 as any Entity }
        }
        switch read {
        case .bookChapters: return try fetch(\MTBook.chapters)
        case .bookNotes: return try fetch(\MTBook.notes)
        case .bookTags: return try fetch(\MTBook.tags)
        case .chapterParagraphs: return try fetch(\MTChapter.paragraphs)
        case .chapterQuotes: return try fetch(\MTChapter.quotes)
        case .tagBooks: return try fetch(\MTTag.books)
        case .tagNotes: return try fetch(\MTTag.notes)
        case .chapterBook: return try fetch(\MTChapter.book)
        case .paragraphChapter: return try fetch(\MTParagraph.chapter)
        case .quoteChapter: return try fetch(\MTQuote.chapter)
        case .noteBook: return try fetch(\MTNote.book)
        case .noteTag: return try fetch(\MTNote.tag)
        case .tagChildren: return try fetch(\MTTag.children)
        case .tagParent: return try fetch(\MTTag.parent)
        case .bookLead: return try fetch(\MTBook.lead)
        case .noteLeadOf: return try fetch(\MTNote.leadOf)
        }
    }
}

extension ModelRunner {
    /// A fetch of every owner with the relationship prefetched: the owners
    /// are what `fetch` returns, each relationship is what the model says
    /// (read from the objects afterwards, which loads nothing more), and
    /// the related objects it read were read as a fetch reads them: one
    /// without unsaved changes takes the stored row, one with changes the
    /// stored values of what it did not change (Concurrency.md).
    func prefetch(_ read: MRead) throws {
        let objects = try ModelAccess.fetchPrefetching(read, in: context)
        let expected = model.fetch(read.owner)
        var got: [MID] = []
        for object in objects {
            guard let id = self.id(of: object) else { throw mismatch("prefetch", "fetch(\(read.owner)) returned an object without a record id") }
            got.append(id)
            handles[id] = object
        }
        note("fetch \(read.owner) prefetching \(read): \(got.sorted())")
        guard got.sorted() == expected else {
            throw mismatch("prefetch", "fetch(\(read.owner)) prefetching \(read) returned \(got.sorted()), the model \(expected)")
        }
        coverage.ops.insert(.prefetch)
        var related: [MID: any Entity] = [:]
        for id in got {
            guard let owner = handles[id] else { continue }
            for (member, object) in try prefetched(read, of: id, owner) { related[member] = object }
        }
        for (id, object) in related {
            handles[id] = object
            // Not held before: read now. Held and stale: the prefetch reads
            // only what a first access reads (a list loaded before and a
            // to-one target already held are not read again: Docs/Relationships.md
            // loads a relationship "on first access"), so the object shows
            // either the stored row, read as a fetch reads it, or what it
            // held — the model follows which (the rule `read` follows).
            guard let held = model.held[id] else {
                model.load(id)
                continue
            }
            if held.phase == .managed, let row = model.store.rows[id], row.version != held.version, shows(object, row, keeping: held) {
                model.fetchOne(id)
            }
        }
        // A list's query reads rows its overlay then leaves out (a member
        // moved away here): an object read so shows the stored values of what
        // it did not change, as any read does (model seed 35299).
        adoptRefreshed()
        for id in Set(got).union(related.keys).sorted() {
            guard let object = handles[id], let held = model.held[id], held.phase != .deleted else { continue }
            let text = ModelAccess.text(object)
            if text != held.text { throw mismatch("prefetch values", "after prefetching \(read) \(id).text is \(text), the model \(held.text)") }
            let values = ModelAccess.values(object)
            if values != held.values { throw mismatch("prefetch values", "after prefetching \(read) \(id) holds \(values), the model \(held.values)") }
        }
    }

    /// The owner's prefetched relationship, checked against the model; the
    /// live related objects it holds, by id.
    private func prefetched(_ read: MRead, of ownerID: MID, _ owner: any Entity) throws -> [(MID, any Entity)] {
        if read.isToOne, let link = read.link {
            let expected = model.fk(ownerID, link).map { MID(kind: link.target, row: $0) }
            // A `.noAction` reference to an object deleted here: not specified.
            if let expected, !model.isLive(expected) || model.isGone(expected) { return [] }
            let target = ModelAccess.target(of: owner, link)
            let got = target.flatMap { self.id(of: $0) }
            guard got == expected else {
                throw mismatch(
                    "prefetch",
                    "\(ownerID).\(link) is \(got.map(String.init(describing:)) ?? "nil") after prefetching, the model \(expected.map(String.init(describing:)) ?? "nil")")
            }
            if let got, let target { return [(got, target)] }
            return []
        }
        let objects = ModelAccess.members(of: owner, read)
        var got: [MID] = []
        for object in objects {
            guard let id = self.id(of: object) else { throw mismatch("prefetch", "\(ownerID).\(read) lists an object the runner does not know") }
            got.append(id)
        }
        var must: [MID] = []
        var may: [MID] = []
        if let link = read.link {
            (must, may) = model.members(of: ownerID, link)
        } else {
            // A list loaded before another writer deleted a row, which a
            // prefetch does not read again, still lists it, as `read` allows
            // (seed 203607: a tag's books loaded by a book's deletion rule).
            must = model.linked(ownerID)
            may = model.formerlyLinked(ownerID)
        }
        let gotSet = Set(got)
        guard got.count == gotSet.count, Set(must).isSubset(of: gotSet), gotSet.isSubset(of: Set(must + may)) else {
            throw mismatch("prefetch", "\(ownerID).\(read) lists \(got.sorted()) after prefetching, the model \(must)\(may.isEmpty ? "" : " (and perhaps \(may))")")
        }
        return zip(got, objects).filter { !model.isGone($0.0) }.map { ($0.0, $0.1) }
    }
}
