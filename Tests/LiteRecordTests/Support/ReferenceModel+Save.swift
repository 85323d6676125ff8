import Foundation
import LiteRecord

// A save of the reference model (ReferenceModel.swift): all or nothing
// (Docs/Concurrency.md), the delete rules' `.deny` and the store's foreign keys (Docs/Relationships.md), and
// optimistic locking under each merge policy (Docs/Concurrency.md, MergePolicy's
// documentation).

extension ReferenceModel {
    enum Conflict { case gone, changed }

    /// Saves the context. `realIDs` gives each insert (by its negative row)
    /// the row id the real save gave it; the model only checks that none
    /// was given before. Changes the model only when the save succeeds.
    /// Whether a row left by the save would name a saved object deleted here.
    var leavesDanglingReference: Bool {
        store.rows.contains { id, row in
            guard held[id]?.phase != .deleted else { return false }
            let fk = held[id]?.fk ?? row.fk
            return fk.contains { link, target in held[MID(kind: link.target, row: target)]?.phase == .deleted }
        }
    }

    mutating func save(realIDs: [Int64: Int64]) -> MSaveExpectation {
        var expected = MSaveExpectation()
        // A count that holds only with the held members whose rows another
        // writer deleted (still this context's until the save meets their
        // conflict): whether the check before the save counts them is not
        // specified — it counts a loaded list as it holds them, and reads one
        // not loaded from the store — so the save may refuse it, or go on and
        // count what the merge policy leaves (``countsBrokenByResolution``;
        // model seed 44732).
        var staleCount = false
        let counts = countViolations(against: ReferenceModel(store: store))
        if !counts.isEmpty, countViolations(against: ReferenceModel(store: store), countingGone: true).isEmpty {
            staleCount = true
        } else if !counts.isEmpty {
            expected.errors.insert(.validationFailed)
        }
        if !denials(among: held.keys).isEmpty || held.keys.contains(where: refusesValue) {
            expected.errors.insert(.validationFailed)
        }
        // A to-one naming an insert deleted again (dropped): the rule of the
        // deleted side decides, as for a saved record. `.deny` refuses the
        // deletion; `.noAction` names a record that never existed
        // (Docs/Relationships.md, "Delete rules"; model seed 79614).
        for (id, object) in held where object.phase != .deleted && !isGone(id) {
            let written = object.phase == .inserted ? Set(object.fk.keys) : object.fkChanged
            for link in written {
                guard let target = object.fk[link], target < 0, held[MID(kind: link.target, row: target)] == nil else { continue }
                expected.errors.insert(link.rule == .deny ? .validationFailed : .constraintViolation)
            }
        }
        // Which of a refused value and a `.unique` clash a save reports first
        // is not specified: the clash is written, the value refused at binding.
        if held.keys.contains(where: refusesValue), intendedNotes(withDeletions: false).duplicateCode != nil {
            expected.errors.insert(.constraintViolation)
        }
        // A pending reference to a record deleted elsewhere is refused,
        // never written as no relationship (ReferenceModel+Merge.swift).
        let deletedElsewhere = referencesDeletedElsewhere
        expected.errors.formUnion(deletedElsewhere)
        // Such a save may meet a `.unique` clash with a row no conflict
        // involves (another writer's insert) first: which of two errors a
        // save reports is not specified, as under `.error` below (model
        // seed 20909: a new chapter naming a book a merged write deleted,
        // and a note given the code another writer's insert holds).
        if !deletedElsewhere.isEmpty, intendedNotes(withDeletions: true).duplicateCode != nil {
            expected.errors.insert(.constraintViolation)
        }
        var conflicts: [MID: Conflict] = [:]
        for (id, object) in held where id.row > 0 && (object.phase == .deleted || (object.phase == .managed && object.changed)) {
            guard let row = store.rows[id] else {
                // Deleted here and in the store: agreed, no conflict.
                if object.phase == .deleted { expected.mayDelete.insert(id) } else { conflicts[id] = .gone }
                continue
            }
            if row.version != object.version { conflicts[id] = .changed }
        }
        if !conflicts.isEmpty, policy == .error {
            expected.errors.insert(.conflict)
            // A save that also leaves a reference to a row deleted here
            // (`.noAction`) may fail on that first: which of two errors a
            // save reports is not specified.
            if leavesDanglingReference { expected.errors.insert(.constraintViolation) }
            // Not so a clash on the `.unique` code, with any row or in an
            // exchange of codes: Docs/Concurrency.md, a save that meets a
            // conflict reports `.conflict` even when a statement also meets
            // a unique index, whichever runs first (seeds 54301, 69530).
        }
        // A `.deny` only a stale list's member holds (``staleDenials(among:)``).
        if staleDenials(among: held.keys) || staleCount {
            if expected.errors.isEmpty { expected.mayFail.insert(.validationFailed) } else { expected.errors.insert(.validationFailed) }
        }
        // A reference the commit refuses (a foreign key to a row gone, checked
        // at COMMIT) comes after the save's statements, and after the counts
        // the resolution leaves, counted in the store before the commit:
        // those may refuse the save first (model seed 104773), so the rest
        // is worked out too, for its errors.
        guard expected.errors.isEmpty || (policy != .error && expected.errors.contains(.constraintViolation)) else { return expected }
        var new = store
        var reread: Set<MID> = []
        var forget: Set<MID> = []
        var written: Set<MID> = []
        // The rows on either side of a one-to-one whose stored value won.
        var pairedSides: [MID] = []
        func real(_ row: Int64?) -> Int64? { row.map { $0 < 0 ? (realIDs[$0] ?? $0) : $0 } }
        for (id, object) in held where object.phase == .deleted && id.row > 0 && store.rows[id] != nil {
            if conflicts[id] == .changed, policy == .storeTrumps {
                // Concurrency.md's table: "the deletion is dropped; the
                // object is kept with the store's values".
                reread.insert(id)
                continue
            }
            new.rows[id] = nil
            expected.deleted.insert(id)
        }
        for (id, object) in held where object.phase == .managed && object.changed && id.row > 0 {
            switch conflicts[id] {
            case .gone?:
                forget.insert(id)
                continue
            case .changed?: reread.insert(id)
            case nil: break
            }
            guard var row = new.rows[id] else { continue }
            var wrote = false
            // Without the values as read (``MHeld/readUnknown``), its own stand for them.
            let readText = object.readUnknown ? object.text : object.readText
            let readValues = object.readUnknown ? object.values : object.readValues
            let storeWins = conflicts[id] == .changed && policy == .storeTrumps && row.text != readText
            if object.textChanged, !storeWins {
                row.text = object.text
                wrote = true
            }
            // Per property (Docs/Concurrency.md): under `.storeTrumps` the store's
            // newer value of a field wins; every other field set here is written.
            var storeWonValue = false
            for field in MField.allCases where object.valuesChanged.contains(field) {
                if conflicts[id] == .changed, policy == .storeTrumps, row.values.differs(readValues, field) {
                    storeWonValue = true
                    continue
                }
                row.values = row.values.taking(field, from: object.values)
                wrote = true
            }
            for link in object.fkChanged {
                // A to-one is a property like an attribute (Concurrency.md):
                // the store's newer target wins under `.storeTrumps`.
                if conflicts[id] == .changed, policy == .storeTrumps, row.fk[link] != object.readFK[link] {
                    storeWonValue = true
                    if link.paired != nil {
                        pairedSides.append(id)
                        for partner in [real(object.fk[link]), row.fk[link]] { if let partner { pairedSides.append(MID(kind: link.target, row: partner)) } }
                    }
                    continue
                }
                row.fk[link] = real(object.fk[link])
                wrote = true
            }
            if wrote {
                row.version += 1
                written.insert(id)
                expected.updated.insert(id)
            } else if storeWins || storeWonValue {
                // The store's newer row won over this context's edit: whether
                // the save's change set names the row it re-read is not specified.
                expected.mayUpdate.insert(id)
            }
            new.rows[id] = row
        }
        for (id, object) in held where object.phase == .inserted {
            let newID = MID(kind: id.kind, row: realIDs[id.row] ?? id.row)
            var fk: [MLink: Int64] = [:]
            for (link, target) in object.fk { fk[link] = real(target) }
            new.rows[newID] = MRow(text: object.text, fk: fk, values: object.values)
            if !new.issued.insert(newID).inserted { expected.reused.append(newID) }
            expected.inserted.insert(newID)
        }
        for (pair, linked) in links.sorted(by: { $0.key < $1.key }) {
            guard let book = real(pair.book), let tag = real(pair.tag) else { continue }
            let ids = [MID(kind: .book, row: book), MID(kind: .tag, row: tag)]
            guard new.rows[ids[0]] != nil, new.rows[ids[1]] != nil else { continue }
            let stored = MPair(book: book, tag: tag)
            guard new.joins.contains(stored) != linked else { continue }
            if linked { new.joins.insert(stored) } else { new.joins.remove(stored) }
            for id in ids {
                new.rows[id]?.version += 1
                written.insert(id)
                if !expected.inserted.contains(id) { expected.updated.insert(id) }
            }
        }
        for pair in new.joins {
            let book = MID(kind: .book, row: pair.book)
            let tag = MID(kind: .tag, row: pair.tag)
            guard new.rows[book] == nil || new.rows[tag] == nil else { continue }
            new.joins.remove(pair)
            new.droppedJoins.insert(pair)
            // The survivor's list changed: Core Data counts it as updated; the
            // contract does not say.
            for id in [book, tag] where new.rows[id] != nil { expected.mayUpdate.insert(id) }
        }
        // Docs/Concurrency.md: under `.storeTrumps` a record deleted here
        // and changed in the store is kept, and the deletion of an owner
        // still goes on: "the kept record's to-one naming the deleted owner is
        // cleared (the record is detached, its version moves on)". Whether
        // the change set names it is not said. So is a side of a one-to-one
        // whose partner this save left naming another record or none (the
        // `.nullify` of the deletion taken back cleared it): both sides of
        // a one-to-one agree (Concurrency.md, the same paragraph).
        for id in reread.sorted() where held[id]?.phase == .deleted {
            guard var row = new.rows[id] else { continue }
            let dangling = row.fk.filter { link, target in
                guard let partner = new.rows[MID(kind: link.target, row: target)] else { return true }
                guard let paired = link.paired else { return false }
                return partner.fk[paired] != id.row
            }.map(\.key)
            guard !dangling.isEmpty else { continue }
            for link in dangling { row.fk[link] = nil }
            row.version += 1
            new.rows[id] = row
            written.insert(id)
            expected.mayUpdate.insert(id)
        }
        // Both sides of a one-to-one agree (Docs/Concurrency.md): where the
        // store's side won, a side of these rows naming a partner that does
        // not name it back is cleared, and they are read again (model seed
        // 120137: the store's partner was displaced here, and the partner
        // set here kept naming the record).
        let agreed = agreeOneToOnes(pairedSides, in: &new)
        for id in agreed where !expected.inserted.contains(id) {
            written.insert(id)
            expected.updated.insert(id)
        }
        let pairedReread = Set(pairedSides).filter { held[$0]?.phase == .managed }
        for (id, row) in new.rows {
            for (link, target) in row.fk where new.rows[MID(kind: link.target, row: target)] == nil {
                _ = id
                expected.errors.insert(.constraintViolation)
            }
        }
        // Docs/GettingStarted.md and History.md: a `.unique` attribute is enforced as an error.
        if new.duplicateCode != nil { expected.errors.insert(.constraintViolation) }
        // Docs/Concurrency.md: a record may take a unique value another gives
        // up in the same save, but values exchanged in a cycle (a swap) are
        // refused: each statement meets the index (seed 37479).
        if exchangesCodes(into: new) { expected.errors.insert(.constraintViolation) }
        if !reread.isEmpty || !forget.isEmpty, countsBrokenByResolution(in: new, reread: reread, forget: forget) {
            expected.errors.insert(.validationFailed)
        }
        guard expected.errors.isEmpty else { return expected }
        for id in written.union(expected.mayUpdate) {
            if let object = held[id], !object.changed, object.phase == .managed, store.rows[id]?.version != object.version { expected.mayReread.insert(id) }
        }
        let before = store
        store = new
        settle(before: before, realIDs: realIDs, reread: reread.union(pairedReread), forget: forget, written: written)
        return expected
    }

    /// Clears, until none is left, each one-to-one side of `rows` naming a
    /// partner whose side does not name it back; returns the rows cleared.
    private func agreeOneToOnes(_ rows: [MID], in new: inout MStore) -> Set<MID> {
        var cleared: Set<MID> = []
        var changed = true
        while changed {
            changed = false
            for id in rows {
                guard var row = new.rows[id] else { continue }
                for (link, target) in row.fk {
                    guard let paired = link.paired, new.rows[MID(kind: link.target, row: target)]?.fk[paired] != id.row else { continue }
                    row.fk[link] = nil
                    row.version += 1
                    new.rows[id] = row
                    cleared.insert(id)
                    changed = true
                }
            }
        }
        return cleared
    }

    /// After a successful save: the context's objects as the contract leaves them.
    private mutating func settle(before: MStore, realIDs: [Int64: Int64], reread: Set<MID>, forget: Set<MID>, written: Set<MID>) {
        var next: [MID: MHeld] = [:]
        for (id, object) in held {
            if forget.contains(id) { continue }
            if object.phase == .deleted, !reread.contains(id) { continue }
            if object.phase == .inserted {
                let newID = MID(kind: id.kind, row: realIDs[id.row] ?? id.row)
                if let row = store.rows[newID] { next[newID] = MHeld(row) }
                continue
            }
            if reread.contains(id) {
                if let row = store.rows[id] { next[id] = MHeld(row) }
                continue
            }
            var settled = object
            if object.changed {
                guard let row = store.rows[id] else { continue }
                settled = MHeld(row)
            } else if written.contains(id), let row = store.rows[id] {
                // Written for a link only. No guide states this (the rule
                // is stated here): "after a save it knows the versions it wrote"
                // (Concurrency.md), so an object that was current takes the
                // version the link's write gave its row; one another writer
                // changed since it was read keeps its version (the save does
                // not read its other values: their conflict stays to meet).
                if before.rows[id]?.version == object.version { settled.version = row.version }
            }
            next[id] = settled
        }
        held = next.mapValues { object in
            var object = object
            object.mergedVersion = nil
            return object
        }
        links = [:]
        cascadeDepth = [:]
        forgotten.formUnion(forget)
    }
}

extension ReferenceModel {
    /// The store's notes as this save would leave their codes, for a clash
    /// on the `.unique` code: an inserted note's values, a changed one's
    /// changed fields over its stored row (a note changed only in its text or
    /// a to-one keeps the code the store gives it, which another writer may
    /// have set: seeds 32043, 34539, 69530; under `.storeTrumps`, not a
    /// field the store changed since the read), and with `withDeletions` the
    /// notes deleted here gone.
    func intendedNotes(withDeletions: Bool) -> MStore {
        var intended = store
        for (id, object) in held where id.kind == .note {
            switch object.phase {
            case .deleted:
                if withDeletions { intended.rows[id] = nil }
            case .inserted:
                intended.rows[id] = MRow(text: object.text, values: object.values)
            default:
                guard object.changed, var row = intended.rows[id] else { continue }
                // Under `.storeTrumps` a field the store changed since the
                // read keeps the store's value (as ``save(realIDs:)`` resolves
                // it; seed 120231).
                let readValues = object.readUnknown ? object.values : object.readValues
                let storeWins = policy == .storeTrumps && row.version != object.version
                for field in object.valuesChanged where !(storeWins && row.values.differs(readValues, field)) {
                    row.values = row.values.taking(field, from: object.values)
                }
                intended.rows[id] = row
            }
        }
        return intended
    }
}

extension MStore {
    /// A code two live notes share (the `.unique` attribute), if any.
    var duplicateCode: String? {
        var seen: Set<String> = []
        for (id, row) in rows.sorted(by: { $0.key < $1.key }) where id.kind == .note {
            guard let code = row.values.code else { continue }
            if !seen.insert(code).inserted { return code }
        }
        return nil
    }
}

extension ReferenceModel {
    /// The most members Book.chapters and Tag.books hold (ModelEntities.swift).
    /// Docs/Relationships.md: the bounds hold however a list changed, a
    /// merge policy's resolution included. The owners a resolution touched
    /// — a deletion `.storeTrumps` dropped (the record kept as an owner,
    /// its cascade's members gone), and the lists a record whose conflict
    /// was resolved belonged to here — are counted in the store the save
    /// leaves (model seeds 42264, 44732).
    func countsBrokenByResolution(in new: MStore, reread: Set<MID>, forget: Set<MID>) -> Bool {
        var owners: Set<MID> = []
        for id in reread where held[id]?.phase == .deleted { owners.insert(id) }
        for id in reread.union(forget) {
            for link in [MLink.noteBook, .chapterBook] where link.holder == id.kind {
                if let owner = held[id]?.fk[link] { owners.insert(MID(kind: .book, row: owner)) }
            }
        }
        for owner in owners where new.rows[owner] != nil {
            switch owner.kind {
            case .book:
                let notes = new.rows.count { $0.key.kind == .note && $0.value.fk[.noteBook] == owner.row }
                let chapters = new.rows.count { $0.key.kind == .chapter && $0.value.fk[.chapterBook] == owner.row }
                if notes < Self.minNotesPerBook || chapters > Self.maxChapters { return true }
            case .tag:
                if new.joins.count(where: { $0.tag == owner.row }) > Self.maxBooksPerTag { return true }
            default:
                break
            }
        }
        return false
    }

    static let maxChapters = 3
    static let maxBooksPerTag = 2
    /// The fewest notes Book.notes holds (ModelEntities.swift).
    static let minNotesPerBook = 1

    /// The counted lists past their maximum (or, Book.notes, below its
    /// minimum) among the owners whose list
    /// differs from `base`'s: Docs/Relationships.md checks the counts "for
    /// every object whose list changed however it changed … whether or not
    /// the list was read", at a save (against the store) and at a child's
    /// push (against the parent).
    ///
    /// `perObject`: an owner any of whose lists changed has all its counts
    /// checked (whether a push checks only the list it changed or every
    /// count of an object it touched is not specified; the child's push
    /// accepts either).
    /// `skipping`: owners not checked (a child's push does not see the
    /// parent's new objects, nor change their lists).
    func countViolations(against base: ReferenceModel, perObject: Bool = false, countingGone: Bool = false, skipping: Set<MID> = []) -> [String] {
        func counted(_ owner: MID, _ link: MLink) -> [MID] {
            let members = members(of: owner, link)
            return countingGone ? members.must + members.may : members.must
        }
        var broken: [String] = []
        var owners = Set(store.rows.keys.filter { $0.kind == .book || $0.kind == .tag })
        owners.formUnion(held.keys.filter { $0.kind == .book || $0.kind == .tag })
        for owner in owners.sorted() where isLive(owner) && !isGone(owner) && !skipping.contains(owner) {
            let now: [MID]
            let before: [MID]
            let limit: Int
            if owner.kind == .book {
                now = counted(owner, .chapterBook)
                before = base.members(of: owner, .chapterBook).must
                limit = Self.maxChapters
            } else {
                now = linked(owner)
                before = base.linked(owner)
                limit = Self.maxBooksPerTag
            }
            var touched = Set(now) != Set(before)
            if perObject, owner.kind == .book {
                touched = touched || Set(members(of: owner, .noteBook).must) != Set(base.members(of: owner, .noteBook).must)
            }
            if now.count > limit, touched { broken.append("\(owner) holds \(now.count) > \(limit)") }
            // Book.notes' minimum: checked for a list that changed however it
            // changed — a note deleted here or by a cascade (another book's
            // lead), moved away — whether or not it was read; a new book's
            // list always, as the insert is a change of it
            // (Docs/Relationships.md; model seed 55195: a child's cascade
            // took a new book's only note).
            guard owner.kind == .book else { continue }
            let notes = counted(owner, .noteBook)
            let notesBefore = base.members(of: owner, .noteBook).must
            let inserted = held[owner]?.phase == .inserted
            if notes.count < Self.minNotesPerBook, Set(notes) != Set(notesBefore) || (perObject && touched) || inserted {
                broken.append("\(owner) holds \(notes.count) notes < \(Self.minNotesPerBook)")
            }
        }
        return broken
    }
}

extension ReferenceModel {
    /// Whether these deletions or moves (the notes of `leaving`) would leave
    /// a new book without a note: not specified (a new book's list was never
    /// "changed" from a stored one), so the runner leaves such a step alone.
    func emptiesNewBook(_ leaving: Set<MID>) -> Bool {
        held.contains { id, object in
            id.kind == .book && id.row < 0 && object.phase == .inserted && !leaving.contains(id)
                && members(of: id, .noteBook).must.allSatisfy { leaving.contains($0) }
        }
    }
}

extension ReferenceModel {
    /// Whether the notes this save writes exchange codes in a cycle: each
    /// takes the code the store gives the next, which gives it up in `new`.
    func exchangesCodes(into new: MStore) -> Bool {
        var holder: [String: MID] = [:]
        for (id, row) in store.rows where id.kind == .note { if let code = row.values.code { holder[code] = id } }
        var takesFrom: [MID: MID] = [:]
        for (id, row) in new.rows where id.kind == .note {
            guard let code = row.values.code, code != store.rows[id]?.values.code, let other = holder[code], other != id,
                new.rows[other] != nil, new.rows[other]?.values.code != code
            else { continue }
            takesFrom[id] = other
        }
        for start in takesFrom.keys {
            var seen: Set<MID> = [start]
            var next = takesFrom[start]
            while let current = next {
                if current == start { return true }
                guard seen.insert(current).inserted else { break }
                next = takesFrom[current]
            }
        }
        return false
    }
}
