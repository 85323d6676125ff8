import Foundation
@testable import LiteRecord

// What the runner observes besides the store's rows and the change set:
// versions, held objects' to-ones, `stack.changes`, history; and the steps
// `reset` and the re-insert of a forgotten object.

/// A change set by record, in the model's ids.
struct MEvent: Equatable, CustomStringConvertible {
    var inserted: Set<MID> = []
    var updated: Set<MID> = []
    var deleted: Set<MID> = []
    /// Expected or not: a commit that may change no row.
    var optional = false
    /// Deletions another writer made first: a save's change set names them
    /// (`ReferenceModel.save`'s `mayDelete`); whether the commit's change
    /// set in `stack.changes` or its history does is not specified.
    var mayLack: Set<MID> = []

    static func == (a: MEvent, b: MEvent) -> Bool { a.inserted == b.inserted && a.updated == b.updated && a.deleted == b.deleted }

    /// Whether `got` is this event, perhaps without the deletions it may lack.
    func admits(_ got: MEvent) -> Bool {
        got.inserted == inserted && got.updated == updated && got.deleted.isSubset(of: deleted) && deleted.subtracting(got.deleted).isSubset(of: mayLack)
    }

    /// Whether `got` is `expected` less optional events it lacks.
    static func matches(_ got: [MEvent], _ expected: [MEvent]) -> Bool {
        var rest = got[...]
        for event in expected {
            if let first = rest.first, event.admits(first) {
                rest = rest.dropFirst()
            } else if !event.optional {
                return false
            }
        }
        return rest.isEmpty
    }

    init(inserted: Set<MID> = [], updated: Set<MID> = [], deleted: Set<MID> = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    init(_ changes: ChangeSet) {
        func ids(_ list: [RecordID]) -> Set<MID> {
            Set(list.compactMap { id in ModelAccess.kind(named: id.entityName).map { MID(kind: $0, row: id.rowID) } })
        }
        self.init(inserted: ids(changes.inserted), updated: ids(changes.updated), deleted: ids(changes.deleted))
    }

    init(_ transaction: HistoryTransaction) {
        func ids(_ kind: HistoryChange.Kind) -> Set<MID> {
            Set(
                transaction.changes.filter { $0.kind == kind }.compactMap { change in
                    ModelAccess.kind(named: change.recordID.entityName).map { MID(kind: $0, row: change.recordID.rowID) }
                })
        }
        self.init(inserted: ids(.insert), updated: ids(.update), deleted: ids(.delete))
    }

    var description: String { "+\(inserted.sorted()) ~\(updated.sorted()) -\(deleted.sorted())" }
}

extension ModelRunner {
    /// Whether `object` shows the stored `row`: its text, and every value
    /// `held` did not change here (all of them without `held`).
    /// A to-one is compared where its slot holds a target (a write may
    /// change only a to-one: the text alone does not tell).
    func shows(_ object: any Entity, _ row: MRow, keeping held: MHeld? = nil) -> Bool {
        // Text edited here shows nothing of a refresh (it is kept): the
        // other fields say whether the row was read (seeds 905733, 10392).
        if held?.textChanged != true { guard ModelAccess.text(object) == row.text else { return false } }
        let values = ModelAccess.values(object)
        guard MField.allCases.allSatisfy({ field in held?.valuesChanged.contains(field) == true || !values.differs(row.values, field) }) else { return false }
        guard let kind = ModelAccess.kind(of: object) else { return true }
        let relationships = type(of: object).relationships
        for link in MLink.holding(kind) where held?.fkChanged.contains(link) != true {
            let name = link.description.split(separator: ".").last.map(String.init) ?? ""
            guard let index = relationships.firstIndex(where: { $0.name == name }) else { continue }
            switch RelationGraph.slot(object, index) {
            case .fault(let target): if target != row.fk[link] { return false }
            case .toOne(let target): if target.flatMap({ $0.recordState.rowID }) != row.fk[link] { return false }
            case .unloaded, .toMany: continue
            }
        }
        return true
    }

    /// The delete rules a deletion of `id` meets, for the coverage line.
    func noteRuleFeatures(_ id: MID) {
        for link in MLink.pointing(at: id.kind) where !model.members(of: id, link).must.isEmpty {
            switch link.rule {
            case .cascade: coverage.features.insert(.cascadeToMany)
            case .nullify: coverage.features.insert(.nullifyToMany)
            case .deny: coverage.features.insert(.denyToMany)
            case .noAction: coverage.features.insert(.noActionToMany)
            }
        }
        // Book.tags is `.nullify`, Tag.books `.deny` (ModelEntities.swift).
        if id.kind == .book, !model.linked(id).isEmpty { coverage.features.insert(.manyToManyNullify) }
        if id.kind == .tag, !model.linked(id).isEmpty { coverage.features.insert(.manyToManyCascadeOrDeny) }
    }

    /// The counted lists a save or push meets past their maximum, for the coverage line.
    func noteCounted(_ violations: [String]) {
        if violations.contains(where: { $0.hasPrefix("Book") || $0.hasPrefix("new Book") }) { coverage.features.insert(.countedToMany) }
        if violations.contains(where: { $0.hasPrefix("Tag") || $0.hasPrefix("new Tag") }) { coverage.features.insert(.countedManyToMany) }
    }

    /// Docs/Concurrency.md and History.md: every write of a row moves its version (optimistic
    /// locking reads nothing else), and a row not written keeps it. The
    /// model's versions count its own writes; LiteRecord's must move exactly
    /// where the model's did since the last comparison (by how much is not
    /// specified).
    func compareVersions() throws {
        let stored = try ModelAccess.readVersions(stack)
        for (id, version) in stored.sorted(by: { $0.key < $1.key }) {
            guard let before = lastVersions.stored[id], let modelBefore = lastVersions.model[id], let modelNow = model.store.rows[id]?.version else { continue }
            let moved = version != before
            if moved != (modelNow != modelBefore) {
                throw mismatch("store versions", "\(id)'s version \(moved ? "moved" : "stayed") (\(before) → \(version)); the model's \(moved ? "stayed" : "moved")")
            }
        }
        lastVersions = (stored, model.store.rows.mapValues(\.version))
        coverage.channels.insert(.storeVersions)
    }

    /// A held object's to-ones, read from their slots without loading
    /// anything (a load would refresh what the model tracks): Docs/Relationships.md's
    /// in-memory inverses make them what the context's changes say.
    func compareRelationships(_ id: MID, _ object: any Entity) throws {
        // An object whose row another writer deleted: whether a delete rule
        // that no longer finds it in the store still changes it is not
        // specified (compareHeld follows the object for its phase too).
        if model.isGone(id) { return }
        let relationships = type(of: object).relationships
        for link in MLink.holding(id.kind) {
            let name = link.description.split(separator: ".").last.map(String.init) ?? ""
            guard let index = relationships.firstIndex(where: { $0.name == name }) else { continue }
            let got: Int64?
            switch RelationGraph.slot(object, index) {
            case .fault(let row): got = row
            case .toOne(let target): got = target.flatMap { self.id(of: $0)?.row }
            case .unloaded, .toMany: continue
            }
            let want = model.held[id]?.fk[link]
            // A `.noAction` reference to an object deleted here, or to a row
            // another writer deleted, is not specified (read: ModelRunner+Steps).
            if let want, !model.isLive(MID(kind: link.target, row: want)) || model.isGone(MID(kind: link.target, row: want)) { continue }
            coverage.channels.insert(.heldRelationships)
            if got != want {
                throw mismatch("held relationship", "\(id).\(link) holds \(got.map(String.init) ?? "nil"), the model \(want.map(String.init) ?? "nil")")
            }
        }
    }

    /// A change set no commit makes: `checkEvents()` publishes it to find the
    /// end of what the commits since the last step delivered.
    static let sentinel = ChangeSet(inserted: [RecordID(entityName: "model.sentinel", rowID: -1)])

    /// The change sets `stack.changes` delivered since the last call.
    func drainEvents() async -> [MEvent] {
        stack.store.changes.publish(Self.sentinel)
        var iterator = fixture.events
        var got: [MEvent] = []
        while let next = await iterator.next(), next != Self.sentinel { got.append(MEvent(next)) }
        fixture.events = iterator
        return got
    }

    /// Docs/Concurrency.md's change stream and Docs/History.md's history: one change set (and, with
    /// history on, one transaction naming the same records) per commit that
    /// changed rows, in commit order — every save, `write {}` and set-based
    /// operation — and nothing for a failed save or a child's push.
    func checkChannels() async throws {
        let got = await drainEvents()
        let expected = expectedEvents
        expectedEvents = []
        if !got.isEmpty { coverage.channels.insert(.changeEvents) }
        guard MEvent.matches(got, expected) else {
            throw mismatch("stack.changes", "delivered \(got), the model \(expected)")
        }
        guard fixture.history else { return }
        let transactions = try stack.fetchHistory(after: historyToken)
        historyToken = transactions.last?.token ?? historyToken
        let recorded = transactions.map(MEvent.init)
        if !recorded.isEmpty { coverage.channels.insert(.history) }
        guard MEvent.matches(recorded, expected) else {
            throw mismatch("history", "recorded \(recorded), the model \(expected)")
        }
    }

    /// `reset()`: the context forgets every object (Docs/Concurrency.md); the saved
    /// ones are kept to be inserted again (`reinsertForgotten`).
    func reset() {
        // Only what the context still holds is forgotten: an object a
        // set-based delete of this context took is deleted, as after its own
        // save, and may be inserted again as a new record (ChangeTrackingTests;
        // Relationships.md, re-inserting a deleted object).
        let held = handles.filter { $0.key.row > 0 && $0.value.recordState.belongs(to: context) }
        context.reset()
        for (_, object) in held.sorted(by: { $0.key < $1.key }) { forgotten.append(object) }
        forgotten = Array(forgotten.suffix(8))
        handles = [:]
        model.held = [:]
        model.links = [:]
        model.cascadeDepth = [:]
        coverage.ops.insert(.reset)
        note("reset")
    }

    /// ForgottenObjectTests: an object a context
    /// forgot is never taken for a new one; its save is refused with
    /// `.invalidObject` (and a rollback takes the insert back). The
    /// context's other changes are rolled back first, so that nothing else
    /// can fail the save.
    func reinsertForgotten(_ pick: UInt32) throws {
        guard !forgotten.isEmpty else { return note("reinsert: nothing forgotten") }
        let object = forgotten[Int(pick) % forgotten.count]
        if context.hasChanges {
            context.rollback()
            model.rollback()
            for id in handles.keys where id.row < 0 { handles[id] = nil }
        }
        context.insert(object)
        var failure: LiteRecordError?
        do { try context.save() } catch let error as LiteRecordError { failure = error }
        context.rollback()
        coverage.ops.insert(.reinsertForgotten)
        note("reinsert a forgotten \(ModelAccess.kind(of: object).map(String.init(describing:)) ?? "?") → \(failure.map { "\($0.kind)" } ?? "saved")")
        guard failure?.kind == .invalidObject else {
            throw mismatch(
                "reinsert forgotten: invalidObject, got \(failure.map { "\($0.kind)" } ?? "success")", failure?.message ?? "a forgotten object was saved as a new record")
        }
    }
}
