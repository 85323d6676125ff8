import Foundation
@testable import LiteRecord

// The steps of other contexts: a child that pushes into the context under
// test, and another writer's `write {}`.

extension ModelRunner {
    /// A child of the context under test: its steps apply to a copy of the
    /// model (a push is the same edits made in the parent), then `save()`
    /// pushes them — or fails with `.validationFailed` when a deletion it
    /// pushes breaks a `.deny` rule (Core Data validates every save), and
    /// then the parent is unchanged.
    func child(_ steps: [MOp], grandchild: Bool = false) throws {
        // A grandchild pushes into a child of the context, which then pushes
        // its changes on: the same edits made in the context (Docs/Concurrency.md, "Child contexts").
        let middle = grandchild ? context.makeChildContext() : nil
        let child = (middle ?? context).makeChildContext()
        coverage.ops.insert(grandchild ? .grandchild : .child)
        var copy = model
        let parentInserts = Set(model.held.keys.filter { $0.row < 0 })
        // The changes of the context's objects whose rows another writer
        // deleted, before the child runs (see the `.nullify` below).
        let goneChanges = followedChanges(staleHandles())
        var deleted: [MID] = []
        var created: [(MID, any Entity)] = []
        var mine: [MID: any Entity] = [:]
        func object(_ id: MID) throws -> any Entity {
            if let known = mine[id] { return known }
            guard let parentObject = handles[id], let found = Self.inContext(parentObject, child) else {
                throw mismatch("child context", "inContext(child) is nil for \(id), which the parent holds and has not deleted")
            }
            mine[id] = found
            return found
        }
        // The parent's saved live objects the runner holds: a child does not
        // see unsaved inserts, nor rows another writer deleted.
        func live(_ kind: MKind) -> [MID] {
            handles.keys.filter { $0.kind == kind && $0.row > 0 && copy.held[$0] != nil && copy.held[$0]?.phase != .deleted && !copy.isGone($0) }.sorted()
        }
        var lines: [String] = []
        // The objects the child's own edits and relates changed, and those
        // its deletions' `.nullify` changed (and kept): their pushed changes are based
        // on the version the child saw, the parent's (below; model seed
        // 415131 at length 80: a note the child's deletion of its book
        // cleared, whose row another writer had changed).
        var editedInChild: Set<MID> = []
        for step in steps {
            let changedBefore = Set(copy.held.filter(\.value.changed).keys)
            defer {
                switch step {
                case .edit, .relate: editedInChild.formUnion(Set(copy.held.filter(\.value.changed).keys).subtracting(changedBefore))
                // Not what the deletion takes along: the push carries a
                // deletion, not the child's changes of what it deletes, and
                // the parent's own rules read it first (model seed 602120).
                case .delete:
                    editedInChild.formUnion(Set(copy.held.filter { $0.value.changed && $0.value.phase != .deleted }.keys).subtracting(changedBefore))
                default: break
                }
            }
            switch step {
            case .create(let kind, let pick):
                let new = ModelAccess.make(kind)
                let text = nextText()
                ModelAccess.setText(new, text)
                let values = kind == .note ? nextValues(from: MValues(), all: true) : MValues()
                ModelAccess.setValues(new, values)
                child.insert(new)
                var fk: [MLink: Int64] = [:]
                if let link = MLink.parentLink(of: kind), let pick, let target = choose(live(link.target), pick) {
                    ModelAccess.setTarget(new, link, try object(target))
                    fk[link] = target.row
                }
                let id = copy.create(kind, text: text, fk: fk, values: values)
                created.append((id, new))
                lines.append("create \(id) \(text)\(fk.isEmpty ? "" : " → \(fk.values.first ?? 0)")")
                // Book.notes holds at least one note: a new book comes with one.
                if kind == .book {
                    let note = ModelAccess.make(.note)
                    let noteText = nextText()
                    ModelAccess.setText(note, noteText)
                    let noteValues = nextValues(from: MValues(), all: true)
                    ModelAccess.setValues(note, noteValues)
                    child.insert(note)
                    ModelAccess.setTarget(note, .noteBook, new)
                    let noteID = copy.create(.note, text: noteText, fk: [.noteBook: id.row], values: noteValues)
                    created.append((noteID, note))
                    lines.append("create \(noteID) \(noteText) → \(id)")
                }
            case .edit(let kind, let pick):
                guard let id = choose(live(kind), pick) else { continue }
                let text = nextText()
                let target = try object(id)
                ModelAccess.setText(target, text)
                if kind == .note, let held = copy.held[id] {
                    let values = nextValues(from: held.values)
                    ModelAccess.setValues(target, values)
                    copy.edit(id, text, values: values)
                } else {
                    copy.edit(id, text)
                }
                lines.append("edit \(id) = \(text)")
            case .relate(let link, let pick, let targetPick, _):
                guard let id = choose(live(link.holder), pick) else {
                    lines.append("relate: nothing to relate")
                    continue
                }
                let target = targetPick.flatMap { choose(live(link.target), $0) }
                // Said, as in the context (ModelRunner.relate): a shrunk
                // sequence lists the step, and the trace shows why it did nothing.
                guard copy.fk(id, link) != target?.row else {
                    lines.append("relate: \(id).\(link) is already \(target.map(String.init(describing:)) ?? "nil")")
                    continue
                }
                ModelAccess.setTarget(try object(id), link, try target.map { try object($0) })
                copy.relate(id, link, target?.row)
                lines.append("\(id).\(link) = \(target.map(String.init(describing:)) ?? "nil")")
            case .link(let bookPick, let tagPick, let linked, let fromTag):
                guard let book = choose(live(.book), bookPick), let tag = choose(live(.tag), tagPick) else { continue }
                guard copy.isLinked(MPair(book: book.row, tag: tag.row)) != linked else { continue }
                ModelAccess.setLinked(book: try object(book), tag: try object(tag), linked, fromTag: fromTag)
                copy.setLink(book: book.row, tag: tag.row, linked)
                lines.append("\(linked ? "link" : "unlink") \(book)–\(tag)")
            case .delete(let kind, let pick):
                guard let id = choose(live(kind), pick) else { continue }
                var probe = copy
                let reached = probe.delete(id)
                // As in the context (ModelRunner.delete): Tag.books' `.deny`
                // after a pending link change of a tag it deletes is not specified.
                if reached.contains(where: { doomed in doomed.kind == .tag && copy.links.keys.contains { $0.tag == doomed.row } }) {
                    lines.append("delete \(id): left alone, a tag it deletes has a pending link change")
                    continue
                }
                // As in the context (ModelRunner.delete): a cascade that would
                // strand a reference to an unsaved object is not specified.
                let strandedInsert = reached.contains { doomed in
                    doomed.row <= 0
                        && MLink.pointing(at: doomed.kind).contains {
                            $0.rule == .deny || $0.rule == .noAction ? !copy.members(of: doomed, $0).must.isEmpty : false
                        }
                }
                if strandedInsert {
                    lines.append("delete \(id): left alone, its cascade would strand a reference to an unsaved object")
                    continue
                }
                if gapped(14, !probe.denials(among: reached, unseen: parentInserts).isEmpty) {
                    lines.append("delete \(id): avoided, known gap 14")
                    continue
                }
                child.delete(try object(id))
                let doomed = copy.delete(id)
                deleted += doomed
                lines.append("delete \(id) (takes \(doomed.dropFirst().map(\.description).joined(separator: ", ")))")
            case .fetch, .read:
                try childFetch(step, child, copy, &lines)
            case .setBased(let kind, let pick):
                try setBasedInChild(kind, pick, child, &lines)
            default: continue
            }
        }
        // The push deletes the parent's objects with the parent's delete
        // rules, whose first read of a list refreshes the stale objects in
        // it, as a deletion in the parent does (model seed 23426).
        // Not an object the child edited or related: Docs/Relationships.md,
        // a child reads a record as the nearest ancestor holding it has it
        // ("as for attribute values"), so its edit is based on what the
        // parent read, at the parent's version, and the push copies it
        // before the parent deletes: the object is changed when a rule's
        // read meets it, and keeps that version (Concurrency.md). Its save
        // then meets the other writer's change (seed 55949).
        let stale = staleHandles()
        let unchanged = Set(stale.filter { model.held[$0]?.changed == false }).subtracting(editedInChild)
        var failure: LiteRecordError?
        do { try child.save() } catch let error as LiteRecordError { failure = error }
        if failure == nil, let middle {
            // The grandchild's push was checked; the child's is the same changes.
            do { try middle.save() } catch let error as LiteRecordError {
                throw mismatch("grandchild: the child's push failed after the grandchild's succeeded", error.message)
            }
        }
        let denials = copy.denials(among: deleted, unseen: parentInserts)
        // Counts are checked for every list the push changes, as the push
        // leaves it in the parent: the parent's inserts the child cannot see
        // included (Docs/Relationships.md; model seeds 122942, 132011). The
        // parent's new owners are not the child's to check. Whether a push
        // checks only the list it changed or every count of an object it
        // touched is not specified: either outcome holds then.
        let counted = copy.countViolations(against: model, perObject: true)
        let countedPushed = copy.countViolations(against: model, skipping: parentInserts)
        noteCounted(counted)
        // A `-0.0` the child set is refused by its push; one the parent
        // holds unsaved may be validated again with it (not specified).
        let refusedHere = copy.held.keys.contains { copy.refusesValue($0) && !model.refusesValue($0) }
        let refused = copy.held.keys.contains(where: copy.refusesValue)
        if refused { coverage.features.insert(.negativeZero) }
        let mustFail = !denials.isEmpty || !countedPushed.isEmpty || refusedHere
        let mayFail = mustFail || !counted.isEmpty || refused
        note("child[\(lines.joined(separator: "; "))] push → \(failure.map { "\($0.kind)" } ?? "ok")")
        if let failure {
            guard mayFail, failure.kind == .validationFailed else {
                throw mismatch("child push outcome: \(mayFail ? "validationFailed" : "success"), got \(failure.kind)", failure.message)
            }
            return
        }
        guard !mustFail else {
            throw mismatch("child push outcome: validationFailed, got success", "the push breaks a .deny rule or a count: \(denials + countedPushed)")
        }
        // The same for a child's `.nullify` (its lists are loaded from the
        // store): the model follows the parent's object.
        followGoneNullify(goneChanges, before: model, in: &copy)
        // A push carries what the child changed relative to its parent: a
        // to-one the child set and set back is no change in the parent.
        for (id, object) in copy.held where object.phase == .managed {
            for link in object.fkChanged where !(model.held[id]?.fkChanged.contains(link) ?? false) {
                if object.fk[link] == model.fk(id, link) { copy.held[id]?.fkChanged.remove(link) }
            }
        }
        // No guide states this (the rule is stated here): a push carries an
        // object's deletion, not the child's edits of it: the parent's object
        // keeps its values (a rollback then takes the deletion back and
        // leaves them, as the parent read them).
        for (id, object) in copy.held where object.phase == .deleted && model.held[id]?.phase != .deleted {
            let parent = model.held[id]
            let text = parent?.text ?? model.store.rows[id]?.text ?? object.text
            copy.held[id]?.text = text
            copy.held[id]?.readText = parent?.readText ?? text
            copy.held[id]?.textChanged = parent?.textChanged ?? false
            let values = parent?.values ?? model.store.rows[id]?.values ?? object.values
            copy.held[id]?.values = values
            copy.held[id]?.readValues = parent?.readValues ?? values
            copy.held[id]?.valuesChanged = parent?.valuesChanged ?? []
            // Its to-ones too: a to-one the child changed before deleting
            // it is not pushed, so the rollback that takes the deletion
            // back finds it unchanged (model seed 519602 at length 60). Not
            // one naming a record the push deletes: the parent's own rule
            // changes it as the child's did (seed 511783).
            let doomed = Set(deleted)
            for link in object.fkChanged {
                let before = parent?.fk[link] ?? model.store.rows[id]?.fk[link]
                if let before, doomed.contains(MID(kind: link.target, row: before)) { continue }
                copy.held[id]?.fk[link] = before
                if parent?.fkChanged.contains(link) != true { copy.held[id]?.fkChanged.remove(link) }
            }
        }
        model = copy
        // So do the links and relates it pushes: the parent makes them as
        // its own link and relate steps do, whose first read of a list
        // refreshes the stale objects in it (model seed 122857).
        adoptRefreshed(stale, unchangedBefore: unchanged)
        // An insert the child deleted again (a cascade took it) is not pushed.
        for (id, new) in created where copy.held[id] != nil {
            guard let pushed = child.pushed[ObjectIdentifier(new)]?.parent,
                let inContext = middle.map({ $0.pushed[ObjectIdentifier(pushed)]?.parent }) ?? pushed
            else {
                throw mismatch("child context", "the parent has no object for the pushed insert \(id)")
            }
            handles[id] = inContext
        }
        // Every other push that inserts keeps its child for the context's
        // next save (a child's pushed insert keeping its identity).
        if middle == nil, saves % 2 == 0 {
            let inserts = created.compactMap { id, new in handles[id].map { (id: id, child: new, parent: $0) } }
            if !inserts.isEmpty { keptChild = (child, inserts) }
        }
    }

    /// A child's pushed insert keeping its identity (Docs/Concurrency.md, "Child contexts"; Queries.md: one object per record
    /// in a context): after a child's push and the parent's save, each
    /// object the child inserted that the save wrote carries the record's id
    /// in the child too, and asking the child for that record returns that
    /// same object, never a second one.
    func checkKeptChild() throws {
        guard let kept = keptChild else { return }
        keptChild = nil
        var checked: [String] = []
        for insert in kept.inserts {
            let parentState = insert.parent.recordState
            guard let recordID = insert.parent.recordID, parentState.belongs(to: context), parentState.phase == .managed,
                let kind = ModelAccess.kind(named: recordID.entityName)
            else { continue }
            let id = MID(kind: kind, row: recordID.rowID)
            checked.append("\(id)")
            guard insert.child.recordID == recordID else {
                throw mismatch(
                    "child identity after the parent's save", "the child's object for \(insert.id), saved as \(id), has record id \(insert.child.recordID.map { "\($0)" } ?? "nil")"
                )
            }
            let found = try ModelAccess.find(kind, row: recordID.rowID, in: kept.context)
            guard let found, found === insert.child else {
                throw mismatch(
                    "child identity after the parent's save", "asking the child for \(id) returns \(found == nil ? "nothing" : "a second object"), not the object it inserted")
            }
        }
        if !checked.isEmpty {
            coverage.ops.insert(.childAfterSave)
            note("the kept child holds \(checked.joined(separator: ", ")) with their record ids")
        }
    }

    private static func inContext(_ object: any Entity, _ context: RecordContext) -> (any Entity)? {
        object.inContext(context)
    }

    /// A fetch in the child: the store's rows less the deletions of the
    /// parent and the child.
    private func childFetch(_ step: MOp, _ child: RecordContext, _ copy: ReferenceModel, _ lines: inout [String]) throws {
        let kind: MKind
        switch step {
        case .fetch(let fetched): kind = fetched
        case .read(let read, _): kind = read.owner
        default: return
        }
        let pending = copy.cascadeDepth.contains { $0.key.kind == kind && copy.held[$0.key]?.phase == .deleted }
        if gapped(4, pending) {
            lines.append("fetch \(kind): avoided, known gap #4")
            return
        }
        let got = try ModelAccess.fetchAll(kind, in: child).compactMap { object in
            object.recordID.flatMap { id in ModelAccess.kind(named: id.entityName).map { MID(kind: $0, row: id.rowID) } }
        }.sorted()
        let expected = copy.store.rows.keys.filter { $0.kind == kind && copy.held[$0]?.phase != .deleted }.sorted()
        // Whether a child sees its parent's unsaved inserts is not specified
        // (``child(_:grandchild:)``): a record the child's cascade reached
        // only through one (a stored paragraph moved onto a chapter the
        // parent inserted) may still be listed (seed 177908).
        let throughParentInsert = copy.store.rows.keys.filter { id in
            id.kind == kind && copy.held[id]?.phase == .deleted && copy.cascadeDepth[id] != nil && model.held[id]?.phase != .deleted
                && (model.held[id]?.fk.values.contains { $0 < 0 } ?? false)
        }
        lines.append("fetch \(kind): \(got)")
        guard Set(got).isSuperset(of: expected), Set(got).isSubset(of: Set(expected + throughParentInsert)), got.count == Set(got).count else {
            throw mismatch("child fetch", "fetch(\(kind)) in the child returned \(got), the model \(expected)")
        }
    }

    // MARK: Another writer

    /// Another writer changes the store at once. The context under test
    /// hears nothing of it, so it meets these changes as conflicts.
    func write(_ write: MWrite) throws {
        switch write {
        case .edit(let kind, let pick):
            guard let id = choose(model.store.rows.keys.filter { $0.kind == kind }.sorted(), pick) else { return note("write: nothing to edit") }
            // Known gap 5 (ModelBasedTests.knownGaps): a cascade the store runs deletes a row changed
            // elsewhere since the delete without a conflict.
            if gapped(5, model.policy == .error && model.cascadeDepth[id] != nil && model.held[id]?.phase == .deleted) { return }
            let text = nextText()
            let row = id.row
            let values = kind == .note ? nextValues(from: model.store.rows[id]?.values ?? MValues()) : nil
            var after = model.store
            if let values { after.rows[id]?.values = values }
            // The `.unique` code is enforced as an error (Docs/History.md), the write rolled back;
            // a `-0.0` is refused at save (Docs/GettingStarted.md).
            let refused = values.map { $0.score == 0 && $0.score.sign == .minus } == true
            let collides = !refused && after.duplicateCode != nil
            coverage.ops.insert(.writeEdit)
            do {
                try otherWriter { context in
                    guard let object = try ModelAccess.find(kind, row: row, in: context) else {
                        throw LiteRecordError(.invalidObject, "the model's \(kind)/\(row) is not in the store")
                    }
                    ModelAccess.setText(object, text)
                    if let values { ModelAccess.setValues(object, values) }
                }
            } catch let error as LiteRecordError where refused && error.kind == .validationFailed {
                coverage.features.insert(.negativeZero)
                return note("write{edit \(id) = \(text), \(values.map(String.init(describing:)) ?? "")} → validationFailed")
            } catch let error as LiteRecordError where collides && error.kind == .constraintViolation {
                return note("write{edit \(id) = \(text), \(values.map(String.init(describing:)) ?? "")} → constraintViolation")
            }
            if collides || refused {
                throw mismatch(
                    "write outcome: \(refused ? "validationFailed" : "constraintViolation"), got success", "a write gave \(id) \(refused ? "-0.0" : "a code another note holds")")
            }
            model.storeEdit(id, text, values: values)
            expectedEvents.append(MEvent(updated: [id]))
            note("write{edit \(id) = \(text)\(values.map { ", \($0)" } ?? "")}")
        case .updateAll(let kind):
            // As many edits of every row of the kind by another writer, in one
            // statement: the same conditions as one edit's, for each row.
            let ids = model.store.rows.keys.filter { $0.kind == kind }.sorted()
            let gappedRow = ids.contains { model.policy == .error && model.cascadeDepth[$0] != nil && model.held[$0]?.phase == .deleted }
            if gapped(5, gappedRow) { return }
            let text = nextText()
            let written = try otherWriter { context in try ModelAccess.updateAllText(kind, text, in: context) }
            guard written == ids.count else {
                throw mismatch("updateAll", "updateAll(\(kind)) wrote \(written) rows; the model holds \(ids.count)")
            }
            for id in ids { model.storeEdit(id, text) }
            if written > 0 { expectedEvents.append(MEvent(updated: Set(ids))) }
            coverage.ops.insert(.writeUpdateAll)
            note("write{updateAll \(kind) = \(text), \(written) rows}")
        case .create(let kind, let pick):
            var target: MID?
            let link = MLink.parentLink(of: kind)
            if let link {
                // Only under objects the context under test never read: a row
                // added under a list it read is a stale list (not specified).
                let free = model.store.rows.keys.filter { $0.kind == link.target && model.held[$0] == nil }.sorted()
                guard let chosen = choose(free, pick ?? 0) else { return note("write: nowhere to create") }
                target = chosen
            }
            if gapped(11, mayReuseRowID(kind, model)) { return }
            let text = nextText()
            let targetRow = target?.row
            // Book.chapters holds at most three (Docs/Relationships.md): the
            // write's save is refused, and nothing is written.
            let over = kind == .chapter && targetRow != nil && model.store.rows.values.filter { $0.fk[.chapterBook] == targetRow }.count >= ReferenceModel.maxChapters
            coverage.ops.insert(.writeCreate)
            if over { coverage.features.insert(.countedToMany) }
            let written: Int64??
            var bookNote: Int64?
            do {
                written = try otherWriter { context -> Int64? in
                    let object = ModelAccess.make(kind)
                    ModelAccess.setText(object, text)
                    context.insert(object)
                    if let link, let targetRow {
                        ModelAccess.setTarget(object, link, try ModelAccess.find(link.target, row: targetRow, in: context))
                    }
                    // Book.notes holds at least one note: a new book comes with one.
                    if kind == .book {
                        let note = ModelAccess.make(.note)
                        ModelAccess.setText(note, text)
                        context.insert(note)
                        ModelAccess.setTarget(note, .noteBook, object)
                        try context.save()
                        bookNote = note.recordID?.rowID
                    } else {
                        try context.save()
                    }
                    return object.recordID?.rowID
                }
            } catch let error as LiteRecordError where over && error.kind == .validationFailed {
                written = nil
            }
            guard let written else { return note("write{create \(kind) under \(target.map(String.init(describing:)) ?? "nil")} → validationFailed") }
            if over { throw mismatch("write outcome: validationFailed, got success", "a write gave \(target.map(String.init(describing:)) ?? "?") a fourth chapter") }
            guard let row = written else { throw mismatch("write", "a write's insert has no record id") }
            var stored = MRow(text: text)
            if let link, let target { stored.fk[link] = target.row }
            let id = MID(kind: kind, row: row)
            note("write{create \(id) \(text)\(target.map { " → \($0)" } ?? "")}")
            expectedEvents.append(MEvent(inserted: [id]))
            if !model.storeInsert(id, stored) {
                throw mismatch("reused row id", "write {} gave its new \(kind) the id \(row) of an earlier record")
            }
            if kind == .book {
                guard let noteRow = bookNote else { throw mismatch("write", "a write's insert has no record id") }
                let noteID = MID(kind: .note, row: noteRow)
                expectedEvents[expectedEvents.count - 1].inserted.insert(noteID)
                if !model.storeInsert(noteID, MRow(text: text, fk: [.noteBook: row])) {
                    throw mismatch("reused row id", "write {} gave its new note the id \(noteRow) of an earlier record")
                }
            }
        case .deleteParagraph(let pick):
            guard let id = choose(model.store.rows.keys.filter { $0.kind == .paragraph }.sorted(), pick) else { return note("write: nothing to delete") }
            let row = id.row
            try otherWriter { context in
                guard let object = try ModelAccess.find(.paragraph, row: row, in: context) else {
                    throw LiteRecordError(.invalidObject, "the model's Paragraph/\(row) is not in the store")
                }
                context.delete(object)
            }
            model.storeDelete(id)
            expectedEvents.append(MEvent(deleted: [id]))
            coverage.ops.insert(.writeDelete)
            note("write{delete \(id)}")
        case .deleteAll(let kind, let truncate): try deleteAllRows(kind, truncate, elsewhere: true)
        case .findOrCreate(let pick): try writeFindOrCreate(pick)
        case .relink(let notePick, let bookPick): try writeRelink(notePick, bookPick)
        }
    }

    /// Another writer's `findFirstOrCreate(byAttribute: "code", …)`: the note
    /// holding the code, or a new one with it and every other value at its
    /// default, saved at once (Docs/GettingStarted.md).
    private func writeFindOrCreate(_ pick: UInt32) throws {
        let code = pick % 2 == 0 ? "A" : "B"
        let existing = model.store.rows.filter { $0.key.kind == .note && $0.value.values.code == code }.keys.sorted().first
        let row = try otherWriter { context in try ModelAccess.findOrCreateNote(code: code, in: context).recordID?.rowID }
        coverage.ops.insert(.writeFindFirstOrCreate)
        note("write{findFirstOrCreate(Note.code \(code)) → \(row.map(String.init) ?? "nil")}")
        if let existing {
            guard row == existing.row else { throw mismatch("findFirstOrCreate", "found Note/\(row.map(String.init) ?? "nil") for code \(code); the model \(existing)") }
            return
        }
        guard let row else { throw mismatch("findFirstOrCreate", "the new note has no record id") }
        let id = MID(kind: .note, row: row)
        if !model.storeInsert(id, MRow(text: "", values: MValues(code: code))) {
            throw mismatch("reused row id", "findFirstOrCreate gave its new note the id \(row) of an earlier record")
        }
        expectedEvents.append(MEvent(inserted: [id]))
    }

    /// Another writer moves a note to another book; neither the note nor its
    /// books are held by the context under test (a list it read would be
    /// stale: not specified).
    private func writeRelink(_ notePick: UInt32, _ bookPick: UInt32) throws {
        let notes = model.store.rows.filter { id, row in
            id.kind == .note && model.held[id] == nil && row.fk[.noteBook].map { model.held[MID(kind: .book, row: $0)] == nil } != false
        }.keys.sorted()
        guard let id = choose(notes, notePick) else { return note("write: no note to relink") }
        let current = model.store.rows[id]?.fk[.noteBook]
        let books = model.store.rows.keys.filter { $0.kind == .book && model.held[$0] == nil && $0.row != current }.sorted()
        guard let book = choose(books, bookPick) else { return note("write: no book to relink to") }
        let row = id.row
        // Book.notes' minimum: moving a book's last note away is refused.
        let empties = current.map { owner in model.store.rows.values.count { $0.fk[.noteBook] == owner } <= ReferenceModel.minNotesPerBook } ?? false
        do {
            try otherWriter { context in
                guard let object = try ModelAccess.find(.note, row: row, in: context), let target = try ModelAccess.find(.book, row: book.row, in: context) else {
                    throw LiteRecordError(.invalidObject, "the model's \(id) or \(book) is not in the store")
                }
                ModelAccess.setTarget(object, .noteBook, target)
            }
        } catch let error as LiteRecordError where empties && error.kind == .validationFailed {
            coverage.ops.insert(.writeRelink)
            return note("write{\(id).book = \(book)} → validationFailed")
        }
        if empties { throw mismatch("write outcome: validationFailed, got success", "a write moved the last note \(id) off its book") }
        model.store.rows[id]?.fk[.noteBook] = book.row
        model.store.rows[id]?.version += 1
        expectedEvents.append(MEvent(updated: [id]))
        coverage.ops.insert(.writeRelink)
        note("write{\(id).book = \(book)}")
    }

    /// In a child, a set-based operation is refused with `.invalidObject`
    /// and changes nothing (SetBasedChildRefusalTests; set-based operations refused in a child).
    func setBasedInChild(_ kind: MKind, _ pick: UInt32, _ child: RecordContext, _ lines: inout [String]) throws {
        let names = ["deleteAll", "truncateAll", "findFirstOrCreate", "updateAll"]
        let which = Int(pick % 4)
        let target: MKind = kind == .paragraph ? .paragraph : .note
        var failure: LiteRecordError?
        do {
            switch which {
            case 0: _ = try ModelAccess.deleteAll(target, truncate: false, in: child)
            case 1: _ = try ModelAccess.deleteAll(target, truncate: true, in: child)
            case 2: _ = try ModelAccess.findOrCreateNote(code: "A", in: child)
            default: _ = try ModelAccess.updateAllText(kind, "refused", in: child)
            }
        } catch let error as LiteRecordError {
            failure = error
        }
        lines.append("\(names[which]) → \(failure.map { "\($0.kind)" } ?? "ran")")
        guard failure?.kind == .invalidObject, failure?.message.contains("\(names[which]) cannot run in a child context") == true else {
            throw mismatch("set-based in a child: invalidObject, got \(failure.map { "\($0.kind)" } ?? "success")", failure?.message ?? "\(names[which]) ran in a child")
        }
        coverage.ops.insert(.childSetBasedRefused)
    }

    /// Runs `body` in a context of its own and saves it: another writer, as
    /// `write {}` is, but without suspending the test (each `write {}` waits
    /// for one of the test run's two threads, which made this test wait
    /// longer than it ran when the whole suite runs in parallel). The context
    /// under test sees the same: a commit it hears nothing of.
    func otherWriter<T>(_ body: (RecordContext) throws -> T) throws -> T {
        let context = stack.newContext()
        let result = try body(context)
        if context.hasChanges { try context.save() }
        return result
    }
}
