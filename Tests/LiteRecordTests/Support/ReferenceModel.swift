import Foundation
import LiteRecord

// The reference model of ModelBasedTests: LiteRecord's contract (Docs/Concurrency.md,
// Relationships.md) in plain Swift, with every related object loaded. It knows the
// store (rows, versions, links) and one context's view of it: the objects
// the context holds, as it read them, and its unsaved changes.
//
// "As if every related object were loaded": a delete rule runs over the
// objects the context holds (as it holds them) and every stored row it does
// not hold yet, read at the moment of the `delete` — so an object a cascade
// takes is held from then on, at the version it had, and another writer's
// later change to it is a conflict.

enum MKind: Int, CaseIterable, Sendable, Comparable, CustomStringConvertible {
    case book, chapter, paragraph, quote, tag, note
    static func < (a: MKind, b: MKind) -> Bool { a.rawValue < b.rawValue }
    var description: String { ["Book", "Chapter", "Paragraph", "Quote", "Tag", "Note"][rawValue] }
    var entityName: String { "MT" + description }
}

/// A to-one relationship (a foreign key column) and the rule its inverse
/// to-many applies when the target is deleted.
enum MLink: Int, CaseIterable, Sendable, CustomStringConvertible {
    case chapterBook, paragraphChapter, quoteChapter, noteBook, noteTag
    /// The widened schema's features (ModelEntities+Features.swift): the
    /// self-referential Tag.parent, and the one-to-one Book.lead ↔ Note.leadOf
    /// (a column on each side, kept paired: ReferenceModel+Features.swift).
    case tagParent, bookLead, noteLeadOf

    enum Rule { case cascade, nullify, deny, noAction }

    var holder: MKind { [.chapter, .paragraph, .quote, .note, .note, .tag, .book, .note][rawValue] }
    var target: MKind { [.book, .chapter, .chapter, .book, .tag, .tag, .note, .book][rawValue] }
    /// The rule deleting the target applies to the holders: its inverse's.
    var rule: Rule { [.cascade, .cascade, .deny, .nullify, .noAction, .cascade, .nullify, .cascade][rawValue] }
    var description: String { ["Chapter.book", "Paragraph.chapter", "Quote.chapter", "Note.book", "Note.tag", "Tag.parent", "Book.lead", "Note.leadOf"][rawValue] }
    /// The name of the to-many (or, one-to-one, the to-one) on the target.
    var inverseName: String { ["Book.chapters", "Chapter.paragraphs", "Chapter.quotes", "Book.notes", "Tag.notes", "Tag.children", "Note.leadOf", "Book.lead"][rawValue] }

    static func holding(_ kind: MKind) -> [MLink] { allCases.filter { $0.holder == kind } }
    static func pointing(at kind: MKind) -> [MLink] { allCases.filter { $0.target == kind } }
}

/// A record: its entity and row id; a negative row is an unsaved insert.
struct MID: Hashable, Comparable, Sendable, CustomStringConvertible {
    let kind: MKind
    let row: Int64
    static func < (a: MID, b: MID) -> Bool { a.kind != b.kind ? a.kind < b.kind : a.row < b.row }
    var description: String { row < 0 ? "new \(kind)#\(-row)" : "\(kind)/\(row)" }
}

struct MRow: Equatable {
    var text: String
    var fk: [MLink: Int64] = [:]
    var version = 1
    /// A note's other values (ModelValues.swift); the defaults for other kinds.
    var values = MValues()
}

/// A link of the many-to-many Book.tags ↔ Tag.books.
struct MPair: Hashable, Comparable {
    let book: Int64
    let tag: Int64
    static func < (a: MPair, b: MPair) -> Bool { a.book != b.book ? a.book < b.book : a.tag < b.tag }
}

struct MStore {
    var rows: [MID: MRow] = [:]
    var joins: Set<MPair> = []
    /// Every row id a save ever gave out: a record's id never comes back.
    var issued: Set<MID> = []
    /// Links that went with a row deleted (`ON DELETE CASCADE`): a
    /// many-to-many list read before that deletion may still show them
    /// (ModelRunner.read; model seed 121216).
    var droppedJoins: Set<MPair> = []
}

/// An object the context holds.
struct MHeld {
    enum Phase { case inserted, managed, deleted }
    var text: String
    /// The text as read, which `.storeTrumps` compares with the store's.
    var readText: String
    var fk: [MLink: Int64]
    /// The to-ones as read, which `.storeTrumps` compares with the store's.
    var readFK: [MLink: Int64]
    var version: Int
    var textChanged = false
    var fkChanged: Set<MLink> = []
    var phase: Phase
    /// A note's other values, as read, and which of them were set since.
    var values: MValues
    var readValues: MValues
    var valuesChanged: Set<MField> = []
    /// Edited before the merge policy became `.storeTrumps`: the values it
    /// was read with are not known (Docs/Concurrency.md, "Set it before
    /// fetching"), so an attribute it changed counts as changed in the store
    /// whenever the stored value differs from its own. A to-one is compared
    /// with the value it was read with all the same (Docs/Concurrency.md: the store's
    /// *newer* values win, this context's other edits are kept).
    var readUnknown = false
    /// A pending deletion's version after a merged write: the version a
    /// `rollback()` taking the deletion back leaves it at, showing the
    /// write's values (Docs/Concurrency.md; model seed 53603).
    var mergedVersion: Int?

    init(_ row: MRow) {
        text = row.text
        readText = row.text
        fk = row.fk
        readFK = row.fk
        version = row.version
        phase = .managed
        values = row.values
        readValues = row.values
    }

    init(inserted text: String, fk: [MLink: Int64], values: MValues = MValues()) {
        self.text = text
        readText = text
        self.fk = fk
        readFK = fk
        version = 0
        phase = .inserted
        self.values = values
        readValues = values
    }

    var changed: Bool { textChanged || !fkChanged.isEmpty || !valuesChanged.isEmpty }

    /// Takes the stored values of `row` for every field not changed here.
    mutating func takeUnchangedValues(of row: MRow) {
        for field in MField.allCases where !valuesChanged.contains(field) { values = values.taking(field, from: row.values) }
    }
}

/// What a save must do: fail with one of `errors`, or succeed and report
/// the change set (`may` ids may be reported or not, see `ReferenceModel`).
struct MSaveExpectation {
    var errors: Set<LiteRecordError.Kind> = []
    var inserted: Set<MID> = []
    var deleted: Set<MID> = []
    var mayDelete: Set<MID> = []
    var updated: Set<MID> = []
    var mayUpdate: Set<MID> = []
    /// Objects written only for a link whose rows another writer changed:
    /// whether the save reads them again is not specified.
    var mayReread: Set<MID> = []
    /// New row ids that an earlier record had (known gap 11).
    var reused: [MID] = []
    /// Errors the save may fail with where it may also succeed (nothing is
    /// written then): a `.deny` that only a stale list's member holds.
    var mayFail: Set<LiteRecordError.Kind> = []
}

struct ReferenceModel {
    var store = MStore()
    var held: [MID: MHeld] = [:]
    /// The context's pending many-to-many changes (row ids; negative: an insert).
    var links: [MPair: Bool] = [:]
    var nextTemp: Int64 = -1
    var policy: MergePolicy = .error
    /// Pending deletions a cascade reached through another cascaded object
    /// (depth two or more), and through any cascade (depth one or more),
    /// until the next save or rollback: the known gaps #3 and #4 name them.
    var cascadeDepth: [MID: Int] = [:]
    /// Saved records the context forgot because they were deleted elsewhere
    /// (a merge, a conflict, a refresh): a pending reference to one is
    /// refused (ReferenceModel+Merge.swift).
    var forgotten: Set<MID> = []

    // MARK: The context's view

    func fk(_ id: MID, _ link: MLink) -> Int64? {
        if let object = held[id] { return object.fk[link] }
        return store.rows[id]?.fk[link]
    }

    func isLive(_ id: MID) -> Bool {
        if let object = held[id] { return object.phase != .deleted }
        return store.rows[id] != nil
    }

    /// Held and deleted in the store by another writer.
    func isGone(_ id: MID) -> Bool { id.row > 0 && held[id]?.phase != .inserted && store.rows[id] == nil }

    /// The objects whose `link` names `owner`: `must` as the contract says;
    /// `may` held objects whose row another writer deleted (a context that
    /// read the list before that deletion still lists them).
    func members(of owner: MID, _ link: MLink) -> (must: [MID], may: [MID]) {
        var must: [MID] = []
        var may: [MID] = []
        for (id, object) in held where id.kind == link.holder && object.phase != .deleted && object.fk[link] == owner.row {
            if isGone(id) { may.append(id) } else { must.append(id) }
        }
        if owner.row > 0 {
            for (id, row) in store.rows where id.kind == link.holder && held[id] == nil && row.fk[link] == owner.row {
                if displacedInStore(id, link, owner) { continue }
                must.append(id)
            }
        }
        return (must.sorted(), may.sorted())
    }

    /// Docs/GettingStarted.md's table of stored kinds: `-0.0` is "refused at
    /// save" (`.validationFailed`: SQLite would return `+0.0`), by a save and
    /// by a child's push. Only a value set here can be one.
    func refusesValue(_ id: MID) -> Bool {
        guard let object = held[id], object.phase != .deleted else { return false }
        return object.values.score == 0 && object.values.score.sign == .minus
    }

    func isLinked(_ pair: MPair) -> Bool { links[pair] ?? store.joins.contains(pair) }

    /// The other ends of `id`'s many-to-many links (tags of a book, books of a tag).
    func linked(_ id: MID) -> [MID] {
        let other: MKind = id.kind == .book ? .tag : .book
        var pairs = Set(links.keys)
        if id.row > 0 { pairs.formUnion(store.joins) }
        return pairs.filter { (id.kind == .book ? $0.book : $0.tag) == id.row && isLinked($0) }
            .map { MID(kind: other, row: id.kind == .book ? $0.tag : $0.book) }
            .filter { isLive($0) }
            .sorted()
    }

    /// The other ends of links that went with a deleted row
    /// (`MStore.droppedJoins`), where one of the pair is a record held here
    /// whose row another writer deleted: a many-to-many list read before that
    /// deletion still lists them, one read after does not — as a to-many
    /// read through a to-one still lists a member deleted elsewhere
    /// (`members`' "may"; Docs/Relationships.md: a relationship is read on first access,
    /// and a deletion this context has not heard of changes nothing in it).
    /// Model seed 121216: a book kept by the merge for its unsaved edits.
    func formerlyLinked(_ id: MID) -> [MID] {
        let other: MKind = id.kind == .book ? .tag : .book
        return store.droppedJoins.filter { pair in (id.kind == .book ? pair.book : pair.tag) == id.row && links[pair] != false }
            .map { MID(kind: other, row: id.kind == .book ? $0.tag : $0.book) }
            .filter { isLive($0) && (isGone($0) || isGone(id)) }
            .sorted()
    }

    // MARK: Changes

    /// Reads a stored row into the context (a fault fired, a list loaded).
    mutating func load(_ id: MID) {
        if held[id] == nil, let row = store.rows[id] { held[id] = MHeld(row) }
    }

    mutating func create(_ kind: MKind, text: String, fk: [MLink: Int64], values: MValues = MValues()) -> MID {
        let id = MID(kind: kind, row: nextTemp)
        nextTemp -= 1
        held[id] = MHeld(inserted: text, fk: fk, values: values)
        return id
    }

    /// Sets the text and (a note's) values. A setter given an equal value
    /// (as stored: AttributeCoding.isChange) changes nothing.
    mutating func edit(_ id: MID, _ text: String, values: MValues? = nil) {
        held[id]?.text = text
        held[id]?.textChanged = true
        guard let values, let old = held[id]?.values else { return }
        held[id]?.valuesChanged.formUnion(values.changedFields(from: old))
        held[id]?.values = values
    }

    mutating func setFK(_ id: MID, _ link: MLink, _ target: Int64?) {
        load(id)
        held[id]?.fk[link] = target
        held[id]?.fkChanged.insert(link)
    }

    /// The context's `mergePolicy` changes: see ``MHeld/readUnknown``.
    mutating func setPolicy(_ new: MergePolicy) {
        if new == .storeTrumps, policy != .storeTrumps {
            for (id, object) in held where object.phase == .managed && object.changed { held[id]?.readUnknown = true }
        }
        policy = new
    }

    /// A link or unlink of one book–tag pair. Set back to what the store
    /// holds it is no change (an unlink and a link of one pair net to
    /// nothing, as a to-one set and set back does): its save writes nothing
    /// and meets no conflict, even when a merged write deleted one of the
    /// pair (model seed 13602).
    mutating func setLink(book: Int64, tag: Int64, _ linked: Bool) {
        let pair = MPair(book: book, tag: tag)
        links[pair] = linked == store.joins.contains(pair) ? nil : linked
    }

    /// `delete` with the delete rules, every related object loaded. Returns
    /// every object it deleted.
    @discardableResult
    mutating func delete(_ id: MID) -> [MID] {
        var doomed: [MID] = []
        delete(id, depth: 0, into: &doomed)
        return doomed
    }

    private mutating func delete(_ id: MID, depth: Int, into doomed: inout [MID]) {
        load(id)
        guard let object = held[id], object.phase != .deleted else { return }
        if object.phase == .inserted { held[id] = nil } else { held[id]?.phase = .deleted }
        doomed.append(id)
        if depth > 0 { cascadeDepth[id] = depth }
        // Docs/Relationships.md, "Delete rules": deleting an object drops
        // its pending many-to-many link changes, whatever the rule (its row's
        // links go with it), so a deletion taken back (a rollback, a refresh,
        // a merge policy) leaves its links as stored.
        if id.kind == .book || id.kind == .tag {
            links = links.filter { (id.kind == .book ? $0.key.book : $0.key.tag) != id.row }
        }
        for link in MLink.pointing(at: id.kind) {
            let (must, may) = members(of: id, link)
            switch link.rule {
            case .cascade: for member in must + may { delete(member, depth: depth + 1, into: &doomed) }
            case .nullify: for member in must + may { setFK(member, link, nil) }
            case .deny, .noAction: break
            }
        }
    }

    /// The deny rules the deleted saved objects of `ids` break, as a save
    /// checks them: each still relates an object not deleted (but those of
    /// `unseen`, the parent's inserts a child does not see).
    func denials(among ids: some Sequence<MID>, unseen: Set<MID> = []) -> [String] {
        var broken: [String] = []
        for id in ids where id.row > 0 && held[id]?.phase == .deleted {
            for link in MLink.pointing(at: id.kind) where link.rule == .deny {
                let related = members(of: id, link).must.filter { !unseen.contains($0) }
                if !related.isEmpty { broken.append("\(id).\(link.inverseName) \(related)") }
            }
            // Tag.books is `.deny` (a rule on a many-to-many): a tag still
            // linked to a book that is not deleted cannot be deleted.
            if id.kind == .tag {
                let related = linked(id).filter { !unseen.contains($0) }
                if !related.isEmpty { broken.append("\(id).Tag.books \(related)") }
            }
        }
        return broken
    }

    /// Whether a `.deny` of a pending deletion relates a held object with
    /// unsaved edits whose row another writer deleted. No guide states this (the rule
    /// is stated here): the object is still this context's (its save
    /// meets the conflict), so whether the rule refuses the deletion first is
    /// not specified (model seed 3514). A member without edits whose row is
    /// gone holds nothing: the rule is judged against the store then, so
    /// the deletion goes through (seed 4917's fix).
    func staleDenials(among ids: some Sequence<MID>) -> Bool {
        for id in ids where id.row > 0 && held[id]?.phase == .deleted {
            for link in MLink.pointing(at: id.kind) where link.rule == .deny {
                if members(of: id, link).may.contains(where: { isGone($0) && held[$0]?.changed == true }) { return true }
            }
            // The same for `Tag.books`, a `.deny` on a many-to-many: a book
            // with edits whose row (and links) another writer deleted
            // (model seed 705892 at length 80: `truncateAll(Book)`).
            if id.kind == .tag, formerlyLinked(id).contains(where: { isGone($0) && held[$0]?.changed == true }) { return true }
        }
        return false
    }

    // MARK: Reading

    /// A fetch: the stored rows of `kind` but those deleted here; held
    /// objects without changes take the stored values and version, changed
    /// ones the stored values of what they did not change.
    mutating func fetch(_ kind: MKind) -> [MID] {
        var ids: [MID] = []
        for (id, row) in store.rows where id.kind == kind && held[id]?.phase != .deleted {
            ids.append(id)
            guard var object = held[id] else {
                held[id] = MHeld(row)
                continue
            }
            guard object.version != row.version else { continue }
            if !object.changed {
                object = MHeld(row)
            } else {
                if !object.textChanged { object.text = row.text }
                object.takeUnchangedValues(of: row)
                object.takeUnchangedToOnes(of: row, id.kind)
            }
            held[id] = object
        }
        return ids.sorted()
    }

    /// One stored row read as a fetch reads it (`findFirst`).
    mutating func fetchOne(_ id: MID) {
        guard let row = store.rows[id], held[id]?.phase != .deleted else { return }
        guard var object = held[id] else {
            held[id] = MHeld(row)
            return
        }
        guard object.version != row.version else { return }
        if !object.changed {
            object = MHeld(row)
        } else {
            if !object.textChanged { object.text = row.text }
            object.takeUnchangedValues(of: row)
            object.takeUnchangedToOnes(of: row, id.kind)
        }
        held[id] = object
    }

    /// Rereads an object from the store (`refresh(_:mergeChanges: false)`);
    /// a row deleted in the store is forgotten.
    mutating func reread(_ id: MID) {
        held[id] = store.rows[id].map { MHeld($0) }
        if held[id] == nil, id.row > 0 { forgotten.insert(id) }
    }

    mutating func refreshMerging(_ id: MID) {
        guard var object = held[id] else { return }
        guard let row = store.rows[id] else {
            held[id] = nil
            if id.row > 0 { forgotten.insert(id) }
            return
        }
        if !object.textChanged { object.text = row.text }
        object.takeUnchangedValues(of: row)
        for link in MLink.holding(id.kind) where !object.fkChanged.contains(link) { object.fk[link] = row.fk[link] }
        object.version = row.version
        if policy == .storeTrumps {
            object.readText = row.text
            object.readValues = row.values
            object.readFK = row.fk
            object.readUnknown = false
        }
        held[id] = object
    }

    /// `rollback()`: inserts dropped, deletions taken back, changed objects
    /// read again from the store.
    mutating func rollback() {
        links = [:]
        cascadeDepth = [:]
        for (id, object) in held {
            if object.phase == .inserted {
                held[id] = nil
            } else if object.changed {
                reread(id)
            } else if object.phase == .deleted {
                held[id]?.phase = .managed
                // Docs/Concurrency.md: a rollback taking back a deletion a
                // merged write gave its values "leaves it at the write's
                // values … and version" (model seeds 53603, 92137), never a
                // version older than one it read since.
                if let version = object.mergedVersion, version > object.version {
                    held[id]?.version = version
                    held[id]?.readText = object.text
                    held[id]?.readValues = object.values
                    held[id]?.readFK = object.fk
                }
            }
            held[id]?.mergedVersion = nil
        }
    }

    // MARK: Another writer

    mutating func storeEdit(_ id: MID, _ text: String, values: MValues? = nil) {
        store.rows[id]?.text = text
        if let values { store.rows[id]?.values = values }
        store.rows[id]?.version += 1
    }

    mutating func storeInsert(_ id: MID, _ row: MRow) -> Bool {
        store.rows[id] = row
        return store.issued.insert(id).inserted
    }

    mutating func storeDelete(_ id: MID) {
        store.rows[id] = nil
        let (kept, dropped) = store.joins.reduce(into: (Set<MPair>(), Set<MPair>())) { sets, pair in
            if (id.kind == .book ? pair.book : id.kind == .tag ? pair.tag : -1) == id.row { sets.1.insert(pair) } else { sets.0.insert(pair) }
        }
        store.joins = kept
        store.droppedJoins.formUnion(dropped)
    }
}
