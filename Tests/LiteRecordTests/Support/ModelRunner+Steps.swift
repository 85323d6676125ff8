import Foundation
@testable import LiteRecord

extension ModelRunner {
    func fetch(_ kind: MKind) throws {
        let deep = model.cascadeDepth.contains { $0.key.kind == kind && $0.value >= 2 && model.held[$0.key]?.phase == .deleted }
        if gapped(3, deep) { return }
        let objects = try ModelAccess.fetchAll(kind, in: context)
        let expected = model.fetch(kind)
        var got: [MID] = []
        for object in objects {
            guard let id = self.id(of: object) else { throw mismatch("fetch", "fetch(\(kind)) returned an object without a record id") }
            got.append(id)
            handles[id] = object
        }
        note("fetch \(kind): \(got.sorted())")
        guard got.sorted() == expected else {
            throw mismatch("fetch", "fetch(\(kind)) returned \(got.sorted()), the model \(expected)")
        }
        coverage.ops.insert(.fetch)
        for id in got {
            guard let object = handles[id], let held = model.held[id] else { continue }
            let text = ModelAccess.text(object)
            if text != held.text { throw mismatch("fetch", "after fetch(\(kind)) \(id).text is \(text), the model \(held.text)") }
            let values = ModelAccess.values(object)
            if values != held.values { throw mismatch("fetch values", "after fetch(\(kind)) \(id) holds \(values), the model \(held.values)") }
        }
    }

    func read(_ read: MRead, _ pick: UInt32) throws {
        guard let ownerID = choose(live(read.owner), pick), let owner = handles[ownerID] else { return note("read: nothing to read") }
        coverage.ops.insert(.read)
        if read.isToOne, let link = read.link {
            let expected = model.fk(ownerID, link).map { MID(kind: link.target, row: $0) }
            let target = ModelAccess.target(of: owner, link)
            let got = target.flatMap { self.id(of: $0) }
            note("read \(ownerID).\(link): \(got.map(String.init(describing:)) ?? "nil")")
            // A `.noAction` reference to an object deleted here: not specified.
            if let expected, !model.isLive(expected) { return }
            guard got == expected else {
                throw mismatch("read", "\(ownerID).\(link) is \(got.map(String.init(describing:)) ?? "nil"), the model \(expected.map(String.init(describing:)) ?? "nil")")
            }
            if let expected, let target { adopt(expected, target) }
            return
        }
        let objects = ModelAccess.members(of: owner, read)
        var got: [MID] = []
        for object in objects {
            guard let id = self.id(of: object) else { throw mismatch("read", "\(ownerID).\(read) lists an object the runner does not know") }
            got.append(id)
        }
        var must: [MID] = []
        var may: [MID] = []
        if let link = read.link {
            (must, may) = model.members(of: ownerID, link)
            // An owner whose row another writer deleted: its list read from
            // the store relates nothing, one read before still holds what it
            // held (as `formerlyLinked` for a many-to-many). A held member
            // whose stored row no longer names it (that deletion's `.nullify`),
            // unchanged here, may be listed or not (seed 152120).
            if model.isGone(ownerID) {
                let stale = must.filter { model.store.rows[$0]?.fk[link] != ownerID.row && model.held[$0]?.fkChanged.contains(link) != true }
                must.removeAll { stale.contains($0) }
                may += stale
            }
        } else {
            must = model.linked(ownerID)
            may = model.formerlyLinked(ownerID)
        }
        // A list read before another writer deleted a row still lists it,
        // though the model never saw that read.
        may += got.filter { $0.row > 0 && model.held[$0] == nil && model.store.rows[$0] == nil }
        note("read \(ownerID).\(read): \(got.sorted())")
        let gotSet = Set(got)
        guard got.count == gotSet.count, Set(must).isSubset(of: gotSet), gotSet.isSubset(of: Set(must + may)) else {
            throw mismatch("read", "\(ownerID).\(read) lists \(got.sorted()), the model \(must)\(may.isEmpty ? "" : " (and perhaps \(may))")")
        }
        for (id, object) in zip(got, objects) { adopt(id, object) }
        if let link = read.link { adoptRefreshed(unlisted(under: ownerID, link)) } else { adoptRefreshed(unlinkedHere(from: ownerID)) }
    }

    /// The same for the many-to-many: the stale objects whose link with the
    /// owner the store holds and this context took away (model seed 404151
    /// at length 80: a tag unlinked here showed the text another writer
    /// stored after its book's tags were read).
    private func unlinkedHere(from ownerID: MID) -> [MID] {
        staleHandles().filter { id in
            let pair: MPair
            switch (ownerID.kind, id.kind) {
            case (.book, .tag): pair = MPair(book: ownerID.row, tag: id.row)
            case (.tag, .book): pair = MPair(book: id.row, tag: ownerID.row)
            default: return false
            }
            return model.store.joins.contains(pair) && model.links[pair] == false
        }
    }

    /// The stale objects (``staleHandles()``) whose stored row the owner's
    /// list reads but which it does not list, their to-one changed here to
    /// name another: a first read refreshes them as any it reads (what they
    /// changed kept), one read before does not; the model follows what
    /// each shows (seed 221436 at length 60: the text another writer
    /// stored showed after the read, where the model kept the old).
    private func unlisted(under ownerID: MID, _ link: MLink) -> [MID] {
        staleHandles().filter { id in
            id.kind == link.holder && model.store.rows[id]?.fk[link] == ownerID.row && model.held[id]?.fkChanged.contains(link) == true
        }
    }

    /// A read made the object known: the model loads it too. An object held
    /// whose row another writer changed may be refreshed by
    /// the read (a list read the first time) or not (read before): the
    /// model follows what the object shows, which must be one of the two.
    /// No guide states this (the rule is stated here): Docs/Relationships.md loads a relationship
    /// "on first access" and says nothing of a later access, so a loaded
    /// list's members are read again or not; an object shows either the
    /// stored row, read as a fetch reads it, or what it held — nothing else.
    private func adopt(_ id: MID, _ object: any Entity) {
        handles[id] = object
        guard let held = model.held[id] else {
            model.load(id)
            return
        }
        guard held.phase == .managed, let row = model.store.rows[id], row.version != held.version else { return }
        // A changed object the read refreshes takes the stored values of
        // what it did not change and keeps its version, as a fetch's
        // refresh does (Concurrency.md; model seed 132819).
        guard !held.changed else { return adoptRefreshed([id]) }
        if shows(object, row) { model.held[id] = MHeld(row) }
    }

    func refresh(_ kind: MKind, _ pick: UInt32, _ merge: Bool) throws {
        guard let id = choose(live(kind, saved: true), pick), let object = handles[id] else { return note("refresh: nothing to refresh") }
        try context.refresh(object, mergeChanges: merge)
        coverage.ops.insert(merge ? .refreshMerging : .refresh)
        if merge { model.refreshMerging(id) } else { model.discardChanges(id) }
        note("refresh \(id) mergeChanges: \(merge)")
    }

    /// A save that reads a to-many for the first time (a `.deny` check, or
    /// `deletedObjects` reading a cascade's rows) refreshes the stale
    /// objects it reads, as any first read does; one read before does not.
    /// The model follows the objects, which must show one of the two (the
    /// rule stated at `adopt`: in no guide).
    func adoptRefreshed() {
        for (id, object) in handles {
            // A pending deletion is an unsaved change: the object keeps the
            // version it is based on (Concurrency.md), read again or not.
            guard let held = model.held[id], !held.changed, held.phase != .deleted, let row = model.store.rows[id], row.version != held.version,
                shows(object, row)
            else { continue }
            model.held[id]?.text = row.text
            model.held[id]?.readText = row.text
            model.held[id]?.values = row.values
            model.held[id]?.readValues = row.values
            model.held[id]?.version = row.version
        }
        // A changed object it reads takes the stored values of what it did
        // not change, and keeps its version.
        adoptRefreshed(staleHandles().filter { model.held[$0]?.changed == true })
    }

    /// A quote this context moved off a chapter it deletes (known gap 2: the
    /// store-side `.deny` reads the store before the save's own updates).
    func movedOffDoomedChapter() -> Bool {
        model.held.contains { id, object in
            guard id.kind == .quote, object.fkChanged.contains(.quoteChapter), let stored = model.store.rows[id]?.fk[.quoteChapter] else { return false }
            return object.fk[.quoteChapter] != stored && model.held[MID(kind: .chapter, row: stored)]?.phase == .deleted
        }
    }

    // MARK: Saving

    func save() throws {
        // Known gap 8: a deletion `.storeTrumps` takes back spares only the
        // rows its cascade left to the store.
        let takenBack =
            model.policy == .storeTrumps
            && model.held.contains { id, object in
                object.phase == .deleted && id.row > 0 && model.store.rows[id].map { $0.version != object.version } == true
            }
        if gapped(8, takenBack) { return }
        if gapped(2, movedOffDoomedChapter()) { return }
        let inserting = Set(model.held.filter { $0.value.phase == .inserted }.map(\.key.kind))
        if gapped(11, inserting.contains { mayReuseRowID($0, model) }) { return }
        saves += 1
        coverage.ops.insert(.save)
        noteCounted(model.countViolations(against: ReferenceModel(store: model.store)))
        if model.held.keys.contains(where: model.refusesValue) { coverage.features.insert(.negativeZero) }
        committed = nil
        var failure: LiteRecordError?
        do {
            try context.save()
        } catch let error as LiteRecordError {
            failure = error
        }
        var realIDs: [Int64: Int64] = [:]
        if failure == nil {
            for (id, object) in handles where id.row < 0 {
                if let row = object.recordID?.rowID { realIDs[id.row] = row }
            }
        }
        let before = model
        let expected = model.save(realIDs: realIDs)
        note("save → \(failure.map { "\($0.kind): \($0.message.prefix(160))" } ?? "ok")")
        if let failure, expected.errors.isEmpty, expected.mayFail.contains(failure.kind) {
            // A failure the model allows where it expected success: nothing
            // was written, so the model is as before the save.
            model = before
        } else if let failure {
            // A check that may refuse before anything is written (`mayFail`:
            // a `.deny` or a count only a stale member holds) may come first
            // in a save that fails anyway: which of two errors a save reports
            // is not specified (seed 151942: a `.unique` clash found later).
            guard expected.errors.contains(failure.kind) || expected.mayFail.contains(failure.kind) else {
                let wanted = expected.errors.isEmpty ? "success" : expected.errors.map { "\($0)" }.sorted().joined(separator: " or ")
                throw mismatch("save outcome: \(wanted), got \(failure.kind)", failure.message)
            }
        } else {
            guard expected.errors.isEmpty else {
                // What the model refuses, so that a sweep tells one rule from another.
                let reasons = model.denials(among: model.held.keys) + model.countViolations(against: ReferenceModel(store: model.store))
                throw mismatch(
                    "save outcome: \(expected.errors.map { "\($0)" }.sorted().joined(separator: " or ")), got success",
                    "the save succeeded\(reasons.isEmpty ? "" : "; the model: \(reasons.joined(separator: ", "))")")
            }
            for (temp, row) in realIDs {
                guard let entry = handles.first(where: { $0.key.row == temp }) else { continue }
                handles[entry.key] = nil
                handles[MID(kind: entry.key.kind, row: row)] = entry.value
            }
            if !expected.reused.isEmpty {
                throw mismatch("reused row id", "the save gave \(expected.reused) the id of an earlier record")
            }
            try compareChanges(expected)
            if let committed, !committed.isEmpty {
                // A save whose only changes are deletions another writer made
                // first changes no row: whether it publishes is not specified.
                var event = MEvent(committed)
                event.optional = event.inserted.isEmpty && event.updated.isEmpty && event.deleted.isSubset(of: expected.mayDelete)
                event.mayLack = expected.mayDelete
                expectedEvents.append(event)
            }
            for id in expected.mayReread {
                guard let object = handles[id], let row = model.store.rows[id], shows(object, row), showsLinks(id, object, row) else { continue }
                model.held[id] = MHeld(row)
            }
        }
        adoptRefreshed()
        try compareStore()
        try compareHeld(saved: failure == nil, mayKeep: failure == nil ? expected.mayDelete : [])
        if failure == nil { try checkKeptChild() }
    }

    private func compareChanges(_ expected: MSaveExpectation) throws {
        let changes = committed ?? ChangeSet()
        func ids(_ list: [RecordID]) -> [MID] {
            list.compactMap { id in ModelAccess.kind(named: id.entityName).map { MID(kind: $0, row: id.rowID) } }
        }
        coverage.channels.insert(.changeSets)
        let inserted = ids(changes.inserted)
        let deleted = ids(changes.deleted)
        let updated = ids(changes.updated)
        if Set(inserted) != expected.inserted || inserted.count != expected.inserted.count {
            throw mismatch("change set inserted", "reported \(inserted.sorted()), the model \(expected.inserted.sorted())")
        }
        let deletedSet = Set(deleted)
        if deleted.count != deletedSet.count || !expected.deleted.isSubset(of: deletedSet) || !deletedSet.isSubset(of: expected.deleted.union(expected.mayDelete)) {
            throw mismatch(
                "change set deleted",
                "reported \(deleted.sorted()), the model \(expected.deleted.sorted())\(expected.mayDelete.isEmpty ? "" : " (and perhaps \(expected.mayDelete.sorted()))")")
        }
        let updatedSet = Set(updated)
        if updated.count != updatedSet.count || !expected.updated.isSubset(of: updatedSet) || !updatedSet.isSubset(of: expected.updated.union(expected.mayUpdate)) {
            throw mismatch(
                "change set updated",
                "reported \(updated.sorted()), the model \(expected.updated.sorted())\(expected.mayUpdate.isEmpty ? "" : " (and perhaps \(expected.mayUpdate.sorted()))")")
        }
    }

    func compareStore() throws {
        let (rows, joins) = try ModelAccess.readStore(stack)
        let expected = model.store.rows
        for id in Set(rows.keys).union(expected.keys).sorted() {
            let got = rows[id]
            let want = expected[id]
            if got?.text != want?.text || got?.fk != want?.fk {
                throw mismatch("store", "\(id) is \(Self.describe(got)) in the store, the model \(Self.describe(want))")
            }
            if let got, let want, got.values != want.values {
                throw mismatch("store values", "\(id) holds \(got.values) in the store, the model \(want.values)")
            }
            if let got {
                coverage.noteValues(got)
                noteFeatures(id, got)
            }
        }
        coverage.channels.insert(.storeRows)
        try compareVersions()
        if joins != model.store.joins {
            throw mismatch(
                "store", "Book–Tag links \(joins.sorted().map { "\($0.book)–\($0.tag)" }) in the store, the model \(model.store.joins.sorted().map { "\($0.book)–\($0.tag)" })")
        }
    }

    static func describe(_ row: MRow?) -> String {
        guard let row else { return "absent" }
        let fks = row.fk.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key)=\($0.value)" }
        return "\"\(row.text)\"\(fks.isEmpty ? "" : " " + fks.joined(separator: " "))"
    }

    /// The context's objects: held or forgotten, deleted or not, and their text.
    /// `mayKeep`: rows another writer deleted that this save deleted too;
    /// whether the context still holds their objects is not specified.
    private func compareHeld(saved: Bool, mayKeep: Set<MID>) throws {
        coverage.channels.insert(.heldAttributes)
        if context.hasChanges == saved {
            throw mismatch("context changes", saved ? "hasChanges is true after a successful save" : "hasChanges is false after a failed save")
        }
        if !saved {
            // Docs/Relationships.md: what a delete takes with it is in `deletedObjects` (which
            // reads the rows a cascade left to the store), and Docs/Concurrency.md: a failed
            // save leaves them there.
            let got = context.deletedObjects.compactMap { self.id(of: $0) }
            // A row another writer deleted may be listed or not.
            let want = model.held.filter { $0.value.phase == .deleted && $0.key.row > 0 && !model.isGone($0.key) }.map(\.key)
            // So may one the model never held: a list read before another
            // writer deleted its row still lists it, and a cascade takes it.
            let may = Set(model.held.keys.filter { model.held[$0]?.phase == .deleted && model.isGone($0) })
                .union(got.filter { $0.row > 0 && model.held[$0] == nil && model.store.rows[$0] == nil })
            if !Set(want).isSubset(of: Set(got)) || !Set(got).isSubset(of: Set(want).union(may)) || got.count != Set(got).count {
                throw mismatch("deleted objects", "deletedObjects after a failed save are \(got.sorted()), the model \(want.sorted())")
            }
            adoptRefreshed()
        }
        for (id, object) in handles.sorted(by: { $0.key < $1.key }) {
            let state = object.recordState
            let holds = state.belongs(to: context) && state.phase != .unmanaged
            guard let held = model.held[id] else {
                // An object whose row another writer deleted may stay held: no
                // context hears of another's deletion until it saves the object.
                let gone = id.row > 0 && model.store.rows[id] == nil
                if holds, !mayKeep.contains(id), !gone { throw mismatch("context objects", "the context still holds \(id), which the model forgot") }
                handles[id] = nil
                continue
            }
            guard holds else { throw mismatch("context objects", "the context no longer holds \(id)") }
            let phase: MHeld.Phase = state.phase == .inserted ? .inserted : state.phase == .deleted ? .deleted : .managed
            if phase != held.phase {
                // A row another writer deleted. No guide states this (the rule
                // is stated here): whether a cascade that no longer finds it
                // in the store still deletes the held object is not specified
                // (both end with the row gone); the model follows the object.
                guard model.isGone(id), Set([phase, held.phase]) == [.managed, .deleted] else {
                    throw mismatch("context objects", "\(id) is \(phase) in the context, \(held.phase) in the model")
                }
                model.held[id]?.phase = phase
            }
            // The values of a deleted object are not specified: no save
            // writes them, and a rollback reads the row again (a child's push
            // carries an object's deletion, not its edits).
            let text = ModelAccess.text(object)
            if phase != .deleted, text != held.text { throw mismatch("context objects", "\(id).text is \(text), the model \(held.text)") }
            let values = ModelAccess.values(object)
            if phase != .deleted, values != held.values { throw mismatch("context values", "\(id) holds \(values), the model \(held.values)") }
            if phase != .deleted { try compareRelationships(id, object) }
        }
    }
}
