import Foundation
import LiteRecord

// The merge of a `write {}` into a main context (Docs/Concurrency.md, "The
// merge into `mainContext` after `write {}`"), in the reference model's
// terms, and what a save then does with a pending reference to a record
// deleted elsewhere (the merge keeping what pending changes name).

extension MHeld {
    /// Takes the stored target of every to-one not changed here (a fetch, a
    /// merge: the stored values of what the object did not change).
    mutating func takeUnchangedToOnes(of row: MRow, _ kind: MKind) {
        for link in MLink.holding(kind) where !fkChanged.contains(link) { fk[link] = row.fk[link] }
    }
}

extension ReferenceModel {
    /// Applies another context's committed write to the context's objects,
    /// as the merge into the main context does. `before` is the store the
    /// write started from; `deleted` and `updated` the records its change set
    /// names.
    ///
    /// Docs/Concurrency.md:
    /// - a record the write deleted is forgotten, unless the context has
    ///   unsaved edits of it: then it stays until the next save, which meets
    ///   the conflict; a pending deletion is no such edit (both sides agree);
    /// - an object without unsaved edits takes the write's values and version;
    /// - one with edits keeps them and takes the write's values of the rest;
    ///   when none of its edits is of a property the write changed, it takes
    ///   the new version too, and its next save meets no conflict.
    ///
    /// No guide states this (the rule is stated here): an object with edits
    /// takes the new version only when it was at the row's version before the
    /// write. One already behind (a commit it never heard of changed the
    /// row before) keeps its version, so that its next save still meets
    /// that earlier conflict: "the merge never drops either side".
    /// A many-to-many link is a property of both records it joins: it is
    /// no column, so a link change is of no property an edit here makes.
    mutating func merge(from before: MStore, deleted: Set<MID>, updated: Set<MID>) -> [MID] {
        var forgottenNow: [MID] = []
        for id in deleted.sorted() {
            guard let object = held[id], object.phase != .inserted else { continue }
            // A pending deletion is no edit to keep: deleted on both sides,
            // the record is forgotten at once (Concurrency.md), and a
            // reference made here to it meets the save's refusal (seed 90699).
            if object.phase == .managed, object.changed { continue }
            held[id] = nil
            cascadeDepth[id] = nil
            forgotten.insert(id)
            forgottenNow.append(id)
        }
        // A to-one not changed here that names a record the merge forgot
        // reads nil, and setting it to nil then is no change. The write's
        // change set refreshes such a holder when the write's rule changed
        // its row; not one whose row another writer had deleted or moved
        // first (model seed 130755).
        if !forgottenNow.isEmpty {
            let gone = Set(forgottenNow)
            for (id, object) in held where object.phase == .managed {
                for link in MLink.holding(id.kind) where !object.fkChanged.contains(link) {
                    guard let row = object.fk[link], gone.contains(MID(kind: link.target, row: row)) else { continue }
                    held[id]?.fk[link] = nil
                    held[id]?.readFK[link] = nil
                }
            }
        }
        for id in updated.sorted() {
            guard var object = held[id], object.phase != .inserted, let row = store.rows[id] else { continue }
            // A pending deletion changes no property: it takes the write's
            // values of everything it did not edit, as a merge of an object
            // with edits does, and keeps its version (Concurrency.md: the
            // merge "never settles a conflict"), so that a rollback leaves it
            // showing what the write merged (model seed 1205366).
            if object.phase == .deleted {
                if !object.textChanged { object.text = row.text }
                object.takeUnchangedValues(of: row)
                object.takeUnchangedToOnes(of: row, id.kind)
                object.mergedVersion = row.version
                held[id] = object
                continue
            }
            guard object.changed else {
                held[id] = MHeld(row)
                continue
            }
            let old = before.rows[id]
            let textWritten = old.map { $0.text != row.text } ?? true
            let fieldsWritten = old.map { row.values.changedFields(from: $0.values) } ?? Set(MField.allCases)
            let linksWritten = Set(MLink.holding(id.kind).filter { old?.fk[$0] != row.fk[$0] })
            if !object.textChanged { object.text = row.text }
            object.takeUnchangedValues(of: row)
            object.takeUnchangedToOnes(of: row, id.kind)
            let overlaps =
                (object.textChanged && textWritten) || !object.valuesChanged.isDisjoint(with: fieldsWritten)
                || !object.fkChanged.isDisjoint(with: linksWritten)
            if !overlaps, let old, object.version == old.version {
                object.version = row.version
                // What it did not change it now reads at the new version.
                if !object.textChanged { object.readText = row.text }
                object.readValues = object.readValues.takingUnchanged(object.valuesChanged, from: row.values)
                for link in MLink.holding(id.kind) where !object.fkChanged.contains(link) { object.readFK[link] = row.fk[link] }
            }
            held[id] = object
        }
        displaceMergedOneToOnes(updated)
        dropLinksTheWriteMade(updated)
        if !updated.isEmpty { applyPendingDeletionRules(written: updated) }
        return forgottenNow
    }

    /// Docs/Concurrency.md: a link change pending here that the write made
    /// too is no change any more, so changing the pair back afterwards (here
    /// or by another write) is one the save writes, or the store keeps
    /// (model seed 241692 at length 60: the main context's unlink, made by
    /// a write too, then undone by a second write, was saved again).
    mutating func dropLinksTheWriteMade(_ updated: Set<MID>) {
        for (pair, linked) in links where updated.contains(MID(kind: .book, row: pair.book)) && store.joins.contains(pair) == linked {
            links[pair] = nil
        }
    }

    /// Docs/Concurrency.md, "A deletion and a merged write": a record the
    /// context is deleting meets what the write related to it as if the
    /// deletion were made after the write. A row the write changed that
    /// names it, unchanged here (an object whose to-one was set here keeps
    /// it; a row the write did not change is left as it is), is cleared by a
    /// `.nullify` and deleted by a `.cascade`, whose own rules follow;
    /// `.deny` and `.noAction` are the save's (model seed 121382: the save
    /// met the foreign key at `COMMIT`, every time).
    mutating func applyPendingDeletionRules(written: Set<MID>) {
        var deletedMore = true
        while deletedMore {
            deletedMore = false
            for (owner, object) in held.sorted(by: { $0.key < $1.key }) where object.phase == .deleted && owner.row > 0 {
                for link in MLink.pointing(at: owner.kind) where link.rule == .nullify || link.rule == .cascade {
                    let named = store.rows.filter { $0.key.kind == link.holder && $0.value.fk[link] == owner.row }.keys
                    for id in named.sorted() where written.contains(id) {
                        load(id)
                        guard let holder = held[id], holder.phase == .managed, !holder.fkChanged.contains(link), holder.fk[link] == owner.row else { continue }
                        if link.rule == .nullify {
                            setFK(id, link, nil)
                        } else {
                            delete(id)
                            deletedMore = true
                        }
                    }
                }
            }
        }
    }

    /// Docs/Concurrency.md: a one-to-one changed here keeps its pairing
    /// over the write's. A record the write paired with a partner whose side
    /// was changed here to name another object (or none) is displaced, read
    /// if it was not held, as the setter displaces a former partner: its side
    /// reads `nil` and its save clears the column, as if the change here had
    /// been made after the write (model seed 12772), for a pending deletion
    /// as for any object.
    mutating func displaceMergedOneToOnes(_ updated: Set<MID>) {
        guard !updated.isEmpty else { return }
        // A pending deletion's side changed here keeps its pairing too: the
        // record the write paired with it is displaced, not reached by its
        // rules (model seed 230357 at length 80).
        for (owner, partner) in held.sorted(by: { $0.key < $1.key }) where partner.phase != .inserted && owner.row > 0 {
            for paired in partner.fkChanged.sorted(by: { $0.rawValue < $1.rawValue }) {
                guard let link = paired.paired else { continue }
                let kept = partner.fk[paired]
                let named = store.rows.filter { $0.key.kind == link.holder && $0.value.fk[link] == owner.row }.keys
                // A pending deletion's: only a record the write paired with it
                // (model seed 230074 at length 80: one refreshed back here is
                // left as it is, as with no merge).
                for id in named.sorted() where id.row != kept && (partner.phase == .managed || updated.contains(id)) {
                    load(id)
                    guard let object = held[id], object.phase == .managed, !object.fkChanged.contains(link), object.fk[link] == owner.row else { continue }
                    setFK(id, link, nil)
                }
            }
        }
    }

    /// Whether `row`'s stored `link` to `owner` is displaced by a
    /// one-to-one changed here: the owner's side names another object (or
    /// none). Such a row is no member of the owner's (a delete rule does not
    /// reach it) and the save clears its column.
    func displacedInStore(_ row: MID, _ link: MLink, _ owner: MID) -> Bool {
        guard let paired = link.paired, let partner = held[owner], partner.fkChanged.contains(paired) else { return false }
        return partner.fk[paired] != row.row
    }

    /// The errors a save that would write a reference to a record deleted
    /// elsewhere may fail with: a to-one changed here (or a new object's)
    /// naming a record the context forgot or holds with edits while its row
    /// is gone, or a many-to-many link added here to one. Docs/Concurrency.md:
    /// the merge "never drops either side", so such a save is refused and
    /// never writes `NULL` or no link (the merge keeping what pending changes name): `.conflict` for a
    /// forgotten record; for one still held, whose conflict the policy
    /// resolves by forgetting it in that save, the foreign key's
    /// `.constraintViolation` may come first (which is not specified).
    var referencesDeletedElsewhere: Set<LiteRecordError.Kind> {
        var errors: Set<LiteRecordError.Kind> = []
        func note(_ id: MID) {
            guard id.row > 0 else { return }
            if forgotten.contains(id) { errors.insert(.conflict) }
            if isGone(id), held[id]?.phase == .managed { errors.formUnion([.conflict, .constraintViolation]) }
        }
        for (id, object) in held where object.phase != .deleted {
            // An object whose own row is gone holds no reference the save
            // writes: Concurrency.md's table, "changed here, deleted in the
            // store": it "stays deleted; the object is forgotten" (under
            // `.error` the save throws `.conflict` for it anyway). Its
            // pending to-ones go with it, one naming itself included (model
            // seed 1109: a tag made its own parent, deleted by a merged write).
            if isGone(id) { continue }
            let links = object.phase == .inserted ? Set(object.fk.keys) : object.fkChanged
            for link in links {
                // Under `.storeTrumps` a to-one the store changed since the
                // read, on a row in conflict, takes the store's value: the
                // reference is never written (Concurrency.md, the policies'
                // table; model seed 59678).
                if policy == .storeTrumps, object.phase == .managed, let row = store.rows[id], row.version != object.version,
                    row.fk[link] != object.readFK[link]
                {
                    continue
                }
                if let target = object.fk[link] { note(MID(kind: link.target, row: target)) }
            }
        }
        for (pair, linked) in links where linked {
            note(MID(kind: .book, row: pair.book))
            note(MID(kind: .tag, row: pair.tag))
        }
        return errors
    }
}

extension MValues {
    /// `self` with every field but `kept` taken from `other`.
    func takingUnchanged(_ kept: Set<MField>, from other: MValues) -> MValues {
        var next = self
        for field in MField.allCases where !kept.contains(field) { next = next.taking(field, from: other) }
        return next
    }
}
