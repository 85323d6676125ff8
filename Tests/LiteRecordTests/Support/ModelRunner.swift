import Foundation
@testable import LiteRecord

/// A difference between LiteRecord and the reference model.
struct ModelMismatch: Error, CustomStringConvertible {
    /// What kind of difference, stable across shrinking ("save outcome", "store", …).
    let signature: String
    let detail: String
    var step = -1
    var description: String { "step \(step): \(signature): \(detail)" }
}

/// Runs one sequence against the seeded in-memory stack (``ModelFixture``)
/// and the reference model side by side, comparing them after every save
/// (and every fetch and read). The context under test is a plain
/// `newContext()`: another writer's saves reach it as conflicts, not merges.
final class ModelRunner {
    let stack: RecordStack
    let context: RecordContext
    var model = ReferenceModel()
    /// The context's objects the runner has a reference to, by model id.
    var handles: [MID: any Entity] = [:]
    var trace: [String] = []
    var saves = 0
    var gapHits: [Int: Int] = [:]
    let gaps: Set<Int>
    var committed: ChangeSet?
    private var texts = 0
    let fixture: ModelFixture
    /// What this sequence exercised and compared (ModelCoverage.swift).
    var coverage = MCoverage()
    /// Objects a `reset()` or a merge forgot: never to be taken for new ones.
    var forgotten: [any Entity] = []
    /// Whether the context under test is a main context (ModelRunner+Merge.swift).
    let main: Bool
    /// The change sets `stack.changes` must have delivered since the last
    /// step, in commit order (ModelRunner+Channels.swift).
    var expectedEvents: [MEvent] = []
    /// The versions last compared, LiteRecord's and the model's.
    var lastVersions: (stored: [MID: Int64], model: [MID: Int]) = ([:], [:])
    var historyToken: HistoryToken?
    /// How many searches ran (ModelRunner+Features.swift picks the next query by it).
    var searches = 0
    /// A child kept after its push (every other push that inserts), with its
    /// inserts and the parent's objects for them: after the context's next
    /// save, each saved one must carry its record id in the child too, and
    /// stay the child's (a child's pushed insert keeping its identity; ModelRunner+Others.swift).
    var keptChild: (context: RecordContext, inserts: [(id: MID, child: any Entity, parent: any Entity)])?

    /// A runner on `fixture`'s stack, put back to the seeded store first.
    init(policy: MergePolicy, gaps: Set<Int>, fixture: ModelFixture, main: Bool = false) throws {
        self.gaps = gaps
        self.main = main
        self.fixture = fixture
        try fixture.restore()
        lastVersions = (fixture.seededVersions, fixture.seeded.rows.mapValues(\.version))
        if fixture.history { historyToken = try fixture.stack.newestHistoryToken() }
        stack = fixture.stack
        model.store = fixture.seeded
        model.policy = policy
        context = main ? Self.mainContext(of: stack) : stack.newContext()
        context.mergePolicy = policy
        context.didSave = { [unowned self] in self.committed = $0 }
    }

    /// Two books with chapters, paragraphs, a quote, tags and notes, saved.
    static func seed(_ stack: RecordStack) throws {
        let context = stack.newContext()
        let books = [MTBook(), MTBook()]
        let tags = [MTTag(), MTTag()]
        for (index, book) in books.enumerated() {
            book.text = "b\(index)"
            context.insert(book)
        }
        for (index, tag) in tags.enumerated() {
            tag.text = "t\(index)"
            context.insert(tag)
        }
        var chapters: [MTChapter] = []
        for (index, owner) in [0, 0, 1].enumerated() {
            let chapter = MTChapter()
            chapter.text = "c\(index)"
            context.insert(chapter)
            chapter.book = books[owner]
            chapters.append(chapter)
        }
        for (index, owner) in [0, 0, 1, 2].enumerated() {
            let paragraph = MTParagraph()
            paragraph.text = "p\(index)"
            context.insert(paragraph)
            paragraph.chapter = chapters[owner]
        }
        let quote = MTQuote()
        quote.text = "q0"
        context.insert(quote)
        quote.chapter = chapters[1]
        books[0].tags = [tags[0]]
        books[1].tags = [tags[0], tags[1]]
        let notes: [(book: Int?, tag: Int?)] = [(0, 0), (1, nil), (nil, 1)]
        var noteObjects: [MTNote] = []
        for (index, (book, tag)) in notes.enumerated() {
            let note = MTNote()
            noteObjects.append(note)
            note.text = "n\(index)"
            context.insert(note)
            note.book = book.map { books[$0] }
            note.tag = tag.map { tags[$0] }
        }
        seedFeatures(books: books, tags: tags, notes: noteObjects)
        try context.save()
    }

    func nextText() -> String {
        texts += 1
        return "x\(texts)"
    }

    /// A note's values after an edit (every field, for a new note), drawn
    /// from the text counter: a change of the code (the `.unique`
    /// attribute) in one edit of four.
    func nextValues(from base: MValues, all: Bool = false) -> MValues {
        let hash = UInt64(texts) &* 0x9E37_79B9_7F4A_7C15
        let which = all ? 0x1FF : UInt32(truncatingIfNeeded: hash >> 7) & 0x1BF | ((hash >> 40) % 4 == 0 ? 0x40 : 0)
        return base.edited(which: which, pick: UInt32(truncatingIfNeeded: hash >> 20))
    }

    // MARK: Picking

    /// The context's live objects of `kind` the runner holds, in id order.
    func live(_ kind: MKind, saved: Bool = false) -> [MID] {
        handles.keys.filter { $0.kind == kind && model.held[$0] != nil && model.held[$0]?.phase != .deleted && (!saved || $0.row > 0) }.sorted()
    }

    func choose(_ ids: [MID], _ pick: UInt32) -> MID? {
        ids.isEmpty ? nil : ids[Int(pick) % ids.count]
    }

    func id(of object: any Entity) -> MID? {
        if let recordID = object.recordID, let kind = ModelAccess.kind(named: recordID.entityName) {
            return MID(kind: kind, row: recordID.rowID)
        }
        return handles.first { $0.value === object }?.key
    }

    func note(_ line: String) {
        trace.append(line)
        if Self.printsSteps { print("  \(trace.count - 1): \(line)") }
    }

    /// `LITERECORD_MODEL_TRACE=steps`: each step is printed as it runs, for
    /// a sequence that crashes before its trace can be shown.
    static let printsSteps = ProcessInfo.processInfo.environment["LITERECORD_MODEL_TRACE"] == "steps"

    /// Whether known gap `item` (ModelBasedTests.knownGaps) is on and
    /// `condition`, the combination that meets its bug, holds: the step is
    /// then not run, and counted.
    func gapped(_ item: Int, _ condition: @autoclosure () -> Bool) -> Bool {
        guard gaps.contains(item), condition() else { return false }
        gapHits[item, default: 0] += 1
        note("avoided: known gap #\(item)")
        return true
    }

    /// Whether an insert of `kind` may now be given the row id of an
    /// earlier record (known gap 11): SQLite gives max(rowid) + 1, and a
    /// higher id was given out before.
    func mayReuseRowID(_ kind: MKind, _ model: ReferenceModel) -> Bool {
        let issued = model.store.issued.filter { $0.kind == kind }.map(\.row).max() ?? 0
        let remaining = model.store.rows.keys.filter { $0.kind == kind && model.held[$0]?.phase != .deleted }.map(\.row).max() ?? 0
        return issued > remaining
    }

    func mismatch(_ signature: String, _ detail: String) -> ModelMismatch {
        ModelMismatch(signature: signature, detail: detail)
    }

    // MARK: Steps

    func run(_ op: MOp) async throws {
        try adoptUnseenReads()
        switch op {
        case .create(let kind, let target): try create(kind, target)
        case .edit(let kind, let pick):
            guard let id = choose(live(kind), pick), let object = handles[id] else { return note("edit: nothing to edit") }
            let text = nextText()
            ModelAccess.setText(object, text)
            if kind == .note, let held = model.held[id] {
                let values = nextValues(from: held.values)
                ModelAccess.setValues(object, values)
                model.edit(id, text, values: values)
                coverage.ops.insert(.editValues)
                note("edit \(id) = \(text), \(values)")
            } else {
                model.edit(id, text)
                note("edit \(id) = \(text)")
            }
            coverage.ops.insert(.edit)
        case .relate(let link, let pick, let target, let via): relate(link, pick, target, via)
        case .link(let book, let tag, let linked, let fromTag): setLink(book, tag, linked, fromTag)
        case .delete(let kind, let pick): delete(kind, pick)
        case .fetch(let kind): try fetch(kind)
        case .read(let read, let pick): try self.read(read, pick)
        case .save:
            // Gap 12, fixed (inert unless LITERECORD_MODEL_GAPS=12 turns it
            // on): a pending link to a book another writer deleted: the save
            // noted the gone book as updated (its version bump changed no
            // row) and, with the change audit on, the audit refused the
            // commit (.sqlite) before the foreign key did (seed 867).
            let auditing = ProcessInfo.processInfo.environment["LITERECORD_AUDIT_CHANGES"] == "1"
            if gapped(12, auditing && model.links.contains { $0.value && model.store.rows[MID(kind: .book, row: $0.key.book)] == nil }) { return }
            // Gap 13, fixed (inert unless LITERECORD_MODEL_GAPS=13 turns it
            // on): a note deleted here whose book another writer then
            // deleted: the save checked the gone book's Book.notes count and
            // refused (seed 758, under .storeTrumps in a main context).
            if gapped(
                13,
                model.held.contains { id, held in
                    id.kind == .note && held.phase == .deleted && held.fk[.noteBook].map { model.store.rows[MID(kind: .book, row: $0)] == nil } == true
                })
            {
                return
            }
            try save()
        case .rollback:
            // Gap #9, fixed (inert unless LITERECORD_MODEL_GAPS=9 turns it
            // on): a pending deletion whose cascade crossed the one-to-one
            // cleared the deleted book's `lead` in memory, and rollback() did
            // not give it back (seed 1153).
            if gapped(9, model.held.contains { $0.value.phase == .deleted && $0.value.fk[.bookLead] != nil }) { return }
            context.rollback()
            model.rollback()
            for id in handles.keys where id.row < 0 { handles[id] = nil }
            coverage.ops.insert(.rollback)
            note("rollback")
        case .refresh(let kind, let pick, let merge): try refresh(kind, pick, merge)
        case .child(let steps): try child(steps)
        case .grandchild(let steps): try child(steps, grandchild: true)
        case .write(let write): try self.write(write)
        case .reset: reset()
        case .reinsertForgotten(let pick): try reinsertForgotten(pick)
        case .policy(let policy):
            context.mergePolicy = policy
            model.setPolicy(policy)
            coverage.ops.insert(.policyChange)
            note("mergePolicy = \(policy)")
        case .setBased: note("setBased: only in a child")
        case .updateAllHere(let kind): try updateAllHere(kind)
        case .deleteAllHere(let kind, let truncate):
            // Known gap 11, settled (LiteRecord's: under `.storeTrumps` the
            // late write of a to-one naming a new object ignored the
            // resolution, StoreTrumpsDeferredToOneTests; seed 1656).
            if gapped(11, model.held.contains { $0.value.phase == .managed && $0.value.fkChanged.contains(.bookLead) }) { return }
            try deleteAllRows(kind, truncate, elsewhere: false)
        case .findOrCreateHere(let code): try findOrCreateHere(code)
        case .widened(let op): try widened(op)
        case .features(let op): try runFeature(op)
        }
    }

    /// Docs/Queries.md, "Set-based updates": one `UPDATE` committed at once;
    /// records the context is deleting are left out; each changed row's
    /// version moves on; objects the context holds "take the new values and
    /// version, keeping their unsaved edits: an edit of another attribute
    /// saves without a conflict, an edit of an attribute set here meets one";
    /// an object with edits already behind the store keeps its version.
    private func updateAllHere(_ kind: MKind) throws {
        let ids = model.store.rows.keys.filter { $0.kind == kind && model.held[$0]?.phase != .deleted }.sorted()
        let text = nextText()
        let written = try ModelAccess.updateAllText(kind, text, in: context)
        coverage.ops.insert(.updateAll)
        note("updateAll \(kind) = \(text), \(written) rows")
        guard written == ids.count else {
            throw mismatch("updateAll", "updateAll(\(kind)) in the context wrote \(written) rows; the model \(ids.count)")
        }
        for id in ids {
            let before = model.store.rows[id]?.version
            model.storeEdit(id, text)
            guard var held = model.held[id], held.phase == .managed, let row = model.store.rows[id] else { continue }
            // An edit of the text set here keeps its value and the version
            // it is based on: its save meets the conflict.
            guard !held.textChanged else { continue }
            // The object holds the row's values: those another writer
            // changed before are taken too.
            guard held.changed else {
                model.held[id] = MHeld(row)
                continue
            }
            held.text = row.text
            held.takeUnchangedValues(of: row)
            // Its edits take the new version only when they were based on the
            // row as it was before this update: an object already behind
            // another writer's change keeps its version, and the values its
            // edits are based on, and its next save meets that change
            // (Docs/Queries.md, "Set-based updates"; model seeds 49751, 57291).
            guard held.version == before else {
                model.held[id] = held
                continue
            }
            held.readText = row.text
            held.readValues = row.values
            held.version = row.version
            model.held[id] = held
        }
        if written > 0 { expectedEvents.append(MEvent(updated: Set(ids))) }
    }

    /// Docs/Queries.md: `findFirstOrCreate` reads the store (unsaved inserts
    /// not found, pending deletions left out) and writes a new record at
    /// once, every other value at its default. A pending deletion of a note
    /// holding the code would leave its row to clash with the new one: not
    /// specified, the step is left out.
    private func findOrCreateHere(_ pick: UInt32) throws {
        let code = pick % 2 == 0 ? "A" : "B"
        let stored = model.store.rows.filter { $0.key.kind == .note && $0.value.values.code == code }.keys.sorted()
        if stored.contains(where: { model.held[$0]?.phase == .deleted }) {
            return note("findFirstOrCreate(Note.code \(code)): left out, its note's deletion is pending")
        }
        let object = try ModelAccess.findOrCreateNote(code: code, in: context)
        coverage.ops.insert(.findFirstOrCreate)
        guard let row = object.recordID?.rowID else { throw mismatch("findFirstOrCreate", "the note for code \(code) has no record id") }
        let id = MID(kind: .note, row: row)
        note("findFirstOrCreate(Note.code \(code)) → \(id)")
        if let existing = stored.first {
            guard id == existing else { throw mismatch("findFirstOrCreate", "found \(id) for code \(code); the model \(existing)") }
            model.fetchOne(id)
            handles[id] = object
            return
        }
        if !model.storeInsert(id, MRow(text: "", values: MValues(code: code))) {
            throw mismatch("reused row id", "findFirstOrCreate gave its new note the id \(row) of an earlier record")
        }
        model.load(id)
        handles[id] = object
        expectedEvents.append(MEvent(inserted: [id]))
    }

    private func create(_ kind: MKind, _ pick: UInt32?) throws {
        let object = ModelAccess.make(kind)
        let text = nextText()
        ModelAccess.setText(object, text)
        let values = kind == .note ? nextValues(from: MValues(), all: true) : MValues()
        ModelAccess.setValues(object, values)
        context.insert(object)
        var fk: [MLink: Int64] = [:]
        var described = ""
        if let link = MLink.parentLink(of: kind), let pick, let target = choose(live(link.target), pick), let targetObject = handles[target] {
            ModelAccess.setTarget(object, link, targetObject)
            fk[link] = target.row
            described = ", \(link) = \(target)"
        }
        let id = model.create(kind, text: text, fk: fk, values: values)
        handles[id] = object
        coverage.ops.insert(.create)
        note("create \(id) \(text)\(described)\(kind == .note ? ", \(values)" : "")")
        // Book.notes holds at least one note: a new book comes with one.
        if kind == .book { try createNote(in: id, object) }
    }

    /// A new note in the new book `book` (Book.notes' minimum).
    private func createNote(in book: MID, _ bookObject: any Entity) throws {
        let object = ModelAccess.make(.note)
        let text = nextText()
        ModelAccess.setText(object, text)
        let values = nextValues(from: MValues(), all: true)
        ModelAccess.setValues(object, values)
        context.insert(object)
        ModelAccess.setTarget(object, .noteBook, bookObject)
        let id = model.create(.note, text: text, fk: [.noteBook: book.row], values: values)
        handles[id] = object
        note("create \(id) \(text), \(MLink.noteBook) = \(book), \(values)")
    }

    private func relate(_ link: MLink, _ pick: UInt32, _ targetPick: UInt32?, _ viaToManyAsked: Bool) {
        // A one-to-one has no list to go through.
        let viaToMany = viaToManyAsked && !link.isOneToOne
        guard let id = choose(live(link.holder), pick), let object = handles[id] else { return note("relate: nothing to relate") }
        let target = targetPick.flatMap { choose(live(link.target), $0) }
        let current = model.fk(id, link)
        guard current != target?.row else { return note("relate: \(id).\(link) is already \(target.map(String.init(describing:)) ?? "nil")") }
        if link == .noteBook, model.emptiesNewBook([id]) { return note("relate: \(id) is the last note of a new book; moving it is left alone") }
        // Known gap 10, settled (the model's: a gone object's pending
        // to-ones are not written, ReferenceModel.referencesDeletedElsewhere).
        if gapped(10, main && link == .tagParent && target == id) { return }
        // Whether a list read after another writer deleted the object's row
        // lists it is not specified, so neither is removing it from the list.
        if viaToMany, target == nil, model.isGone(id) { return note("relate: \(id) is gone from the store; removing it from a list is not specified") }
        // Through a to-many, the list is read first if it was not, which
        // refreshes its stale objects before the to-one changes.
        // The model's relate runs first, so that the refreshed object's to-one
        // changed by this step is not taken for a stale one (seed 45617);
        // what was unchanged before still takes the row's version.
        let stale = relateMayRead(link, viaToMany, owners: [target?.row, current])
        let unchangedBefore = Set(stale.filter { model.held[$0]?.changed == false })
        coverage.ops.insert(viaToMany ? .relateViaList : .relate)
        defer { adoptRefreshed(stale, unchangedBefore: unchangedBefore) }
        noteFeatures(link)
        defer { model.relate(id, link, target?.row) }
        if viaToMany, let target, let owner = handles[target] {
            ModelAccess.change(owner, link, object, adding: true)
            note("\(target).\(link.inverseName).append(\(id))")
        } else if viaToMany, target == nil, let current, let owner = handles[MID(kind: link.target, row: current)],
            model.isLive(MID(kind: link.target, row: current))
        {
            ModelAccess.change(owner, link, object, adding: false)
            note("\(MID(kind: link.target, row: current)).\(link.inverseName).remove(\(id))")
        } else {
            ModelAccess.setTarget(object, link, target.flatMap { handles[$0] })
            note("\(id).\(link) = \(target.map(String.init(describing:)) ?? "nil")")
        }
    }

    /// The stale objects (``staleHandles()``) a relate may read again.
    /// Through a to-many it reads the list it changes, which names the
    /// objects whose stored row names its owner (the new one, or the old
    /// one the object leaves): a stale object listed under neither is not
    /// read by it, so a stored change of its to-one alone, which its
    /// attributes cannot show, does not pass for a refresh (seed 204962,
    /// at `LITERECORD_MODEL_LENGTH=80`). A to-one set directly leaves the
    /// question to what each object shows, as before.
    private func relateMayRead(_ link: MLink, _ viaToMany: Bool, owners: [Int64?]) -> [MID] {
        let stale = staleHandles()
        guard viaToMany else { return stale }
        let listed = Set(owners.compactMap { $0 })
        return stale.filter { id in
            guard id.kind == link.holder, let owner = model.store.rows[id]?.fk[link] else { return false }
            return listed.contains(owner)
        }
    }

    private func setLink(_ bookPick: UInt32, _ tagPick: UInt32, _ linked: Bool, _ fromTag: Bool) {
        guard let book = choose(live(.book), bookPick), let tag = choose(live(.tag), tagPick),
            let bookObject = handles[book], let tagObject = handles[tag]
        else { return note("link: nothing to link") }
        let pair = MPair(book: book.row, tag: tag.row)
        guard model.isLinked(pair) != linked else { return note("link: \(book)–\(tag) already \(linked)") }
        // Whether a list read before another writer deleted one of the pair
        // (unmerged) still lists the other is not specified (as for a
        // relate's removal): so neither is linking or unlinking the pair,
        // which that list may show done already (seed 46978: the tag's
        // loaded books still held the book, and the link changed nothing).
        if model.isGone(book) || model.isGone(tag) {
            return note("link: \(model.isGone(book) ? book : tag) is gone from the store; changing its links is not specified")
        }
        // Changing a link reads the list it changes (and its inverse) if not
        // read yet, which refreshes the stale objects in it.
        let stale = staleHandles()
        coverage.ops.insert(linked ? .link : .unlink)
        ModelAccess.setLinked(book: bookObject, tag: tagObject, linked, fromTag: fromTag)
        model.setLink(book: book.row, tag: tag.row, linked)
        adoptRefreshed(stale)
        note("\(linked ? "link" : "unlink") \(book)–\(tag)\(fromTag ? " from the tag" : "")")
    }

    private func delete(_ kind: MKind, _ pick: UInt32) {
        // An unsaved object that a `.deny` or `.noAction` to-many still
        // relates may be deleted, directly or by a cascade: the save meets
        // the rule as for a saved record (Docs/Relationships.md, "Delete
        // rules"; `ReferenceModel.save`; seed 79614). An unsaved tag with
        // links is still left alone.
        let candidates = live(kind).filter { id in id.row > 0 || !(kind == .tag && !model.linked(id).isEmpty) }
        guard let id = choose(candidates, pick), let object = handles[id] else { return note("delete: nothing to delete") }
        var probe = model
        let reached = probe.delete(id)
        if model.emptiesNewBook(Set(reached)) { return note("delete \(id): left alone, it would leave a new book without a note") }
        // A tag's deletion drops its pending link changes (see
        // `ReferenceModel.delete`): whether Tag.books' `.deny` then sees the
        // links as stored or as changed here is not specified.
        if reached.contains(where: { doomed in doomed.kind == .tag && model.links.keys.contains { $0.tag == doomed.row } }) {
            return note("delete \(id): left alone, a tag it deletes has a pending link change")
        }
        // A delete rule that reads a to-many for the first time refreshes
        // the stale objects in it: among them objects the model holds from
        // an earlier step's rule (a cascade a rollback took back) that the
        // runner never had in hand (seed 182934).
        attachRegisteredHandles()
        let stale = staleHandles()
        let unchanged = Set(stale.filter { model.held[$0]?.changed == false })
        coverage.ops.insert(.delete)
        noteRuleFeatures(id)
        let goneChanges = followedChanges(stale)
        let before = model
        context.delete(object)
        let doomed = model.delete(id)
        followGoneNullify(goneChanges, before: before)
        // A rule that reads an object and then changes it (`.nullify`)
        // refreshed it while it was unchanged.
        adoptRefreshed(stale, unchangedBefore: unchanged)
        note("delete \(id) (takes \(doomed.dropFirst().map(\.description).joined(separator: ", ")))")
    }

    /// Docs/Relationships.md: delete rules run in the context over the related objects
    /// it loads ("a to-one or to-many is loaded on first access from its
    /// context"), and a list loaded from the store after another writer
    /// deleted a row no longer relates it. So whether a `.nullify` reaches a
    /// held object whose row is gone (`members`' "may": a list read before
    /// still holds it) is not specified: the model follows the context's
    /// object (`goneChanges`: the changes of such objects before the step).
    /// The same for a held object another writer changed, whose stored row
    /// no longer names the owner (model seed 231842 at length 80: a
    /// `deleteAll` elsewhere had cleared the note's book).
    func followGoneNullify(_ goneChanges: [MID: AttributeMask], before: ReferenceModel, in target: inout ReferenceModel) {
        for (id, changes) in goneChanges {
            guard let object = handles[id], object.recordState.changes == changes, let original = before.held[id],
                let changed = target.held[id], changed.phase == .managed
            else { continue }
            for link in changed.fkChanged.subtracting(original.fkChanged) {
                target.held[id]?.fk[link] = original.fk[link]
                target.held[id]?.fkChanged.remove(link)
            }
        }
    }

    /// The changes before a step of the held objects a `.nullify` may
    /// reach or not (``followGoneNullify(_:before:)``): those whose row
    /// another writer deleted, and those of `stale` whose stored to-ones it
    /// changed since they were read, which a list read now leaves out.
    func followedChanges(_ stale: [MID]) -> [MID: AttributeMask] {
        let moved = Set(stale.filter { id in model.store.rows[id].map { $0.fk != model.held[id]?.readFK } ?? false })
        var changes: [MID: AttributeMask] = [:]
        for (id, object) in handles where (model.isGone(id) || moved.contains(id)) && model.held[id]?.phase == .managed {
            changes[id] = object.recordState.changes
        }
        return changes
    }

    func followGoneNullify(_ goneChanges: [MID: AttributeMask], before: ReferenceModel) {
        followGoneNullify(goneChanges, before: before, in: &model)
    }

    /// Held objects whose rows another writer changed since they were read.
    /// A first read of a to-many that lists one refreshes it (as any read
    /// does: a fetch, a fault, a list); a list read before does not. Which
    /// lists were read is LiteRecord's business, so the model takes from
    /// each object which of the two happened (``adoptRefreshed(_:)``).
    func staleHandles() -> [MID] {
        handles.keys.filter { id in
            guard let held = model.held[id], held.phase == .managed, let row = model.store.rows[id] else { return false }
            return row.version != held.version
        }
    }

    /// The objects of `stale` (``staleHandles()``) that now show their stored
    /// text were refreshed: an unchanged one takes the stored row and
    /// version; a changed one takes the stored values of what it did not
    /// change and keeps the version its changes are based on
    /// (`mergeStoredRow`: its save still meets the conflict).
    func adoptRefreshed(_ stale: [MID], unchangedBefore: Set<MID> = []) {
        for id in stale {
            guard let held = model.held[id], let object = handles[id], let row = model.store.rows[id],
                shows(object, row, keeping: held)
            else { continue }
            if !held.textChanged { model.held[id]?.text = row.text }
            model.held[id]?.values = ModelAccess.values(object)
            guard !held.changed || unchangedBefore.contains(id) else { continue }
            model.held[id]?.readText = row.text
            model.held[id]?.readValues = row.values
            model.held[id]?.version = row.version
        }
    }

    /// Takes in hand the context's objects for records the model holds but
    /// the runner has no object for (read by a rule, not by a step).
    func attachRegisteredHandles() {
        for object in context.identityMap.objects where object.recordState.phase == .managed {
            guard let id = id(of: object), handles[id] == nil, model.held[id] != nil else { continue }
            handles[id] = object
        }
    }

    /// Objects a step read without the runner seeing them (the members of a
    /// list a link or a relate read, a rule's reads): read during the last
    /// step, they hold the row as the store held it then, at its version —
    /// and no other writer ran since, so that is the row the model holds
    /// now. No guide states this (the rule is stated here): a read object holds
    /// its row as read, at the version read (Concurrency.md says so of a
    /// fetch; the same for a relationship's load).
    func adoptUnseenReads() throws {
        for object in context.identityMap.objects where object.recordState.phase == .managed {
            guard let id = id(of: object), id.row > 0, model.held[id] == nil, let row = model.store.rows[id] else { continue }
            guard shows(object, row) else {
                throw mismatch("unseen read", "\(id), read by the last step, holds \(ModelAccess.text(object)) \(ModelAccess.values(object)); the store \(row.text) \(row.values)")
            }
            model.held[id] = MHeld(row)
            handles[id] = object
        }
    }
}
