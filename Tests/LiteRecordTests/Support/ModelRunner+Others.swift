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
    func child(_ steps: [MOp]) throws {
        let child = context.makeChildContext()
        var copy = model
        let parentInserts = Set(model.held.keys.filter { $0.row < 0 })
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
        for step in steps {
            switch step {
            case .create(let kind, let pick):
                let new = ModelAccess.make(kind)
                let text = nextText()
                ModelAccess.setText(new, text)
                child.insert(new)
                var fk: [MLink: Int64] = [:]
                if let link = MLink.holding(kind).first, let pick, let target = choose(live(link.target), pick) {
                    ModelAccess.setTarget(new, link, try object(target))
                    fk[link] = target.row
                }
                let id = copy.create(kind, text: text, fk: fk)
                created.append((id, new))
                lines.append("create \(id) \(text)\(fk.isEmpty ? "" : " → \(fk.values.first ?? 0)")")
            case .edit(let kind, let pick):
                guard let id = choose(live(kind), pick) else { continue }
                let text = nextText()
                ModelAccess.setText(try object(id), text)
                copy.edit(id, text)
                lines.append("edit \(id) = \(text)")
            case .relate(let link, let pick, let targetPick, _):
                guard let id = choose(live(link.holder), pick) else { continue }
                let target = targetPick.flatMap { choose(live(link.target), $0) }
                guard copy.fk(id, link) != target?.row else { continue }
                ModelAccess.setTarget(try object(id), link, try target.map { try object($0) })
                copy.setFK(id, link, target?.row)
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
                if gapped(14, !probe.denials(among: reached, unseen: parentInserts).isEmpty) {
                    lines.append("delete \(id): avoided, known gap #14")
                    continue
                }
                child.delete(try object(id))
                let doomed = copy.delete(id)
                deleted += doomed
                lines.append("delete \(id) (takes \(doomed.dropFirst().map(\.description).joined(separator: ", ")))")
            case .fetch, .read:
                try childFetch(step, child, copy, &lines)
            default: continue
            }
        }
        var failure: LiteRecordError?
        do { try child.save() } catch let error as LiteRecordError { failure = error }
        let denials = copy.denials(among: deleted, unseen: parentInserts)
        note("child[\(lines.joined(separator: "; "))] push → \(failure.map { "\($0.kind)" } ?? "ok")")
        if let failure {
            guard !denials.isEmpty, failure.kind == .validationFailed else {
                throw mismatch("child push outcome: \(denials.isEmpty ? "success" : "validationFailed"), got \(failure.kind)", failure.message)
            }
            return
        }
        guard denials.isEmpty else {
            throw mismatch("child push outcome: validationFailed, got success", "the push deleted objects a .deny rule keeps: \(denials)")
        }
        // A push carries what the child changed relative to its parent: a
        // to-one the child set and set back is no change in the parent.
        for (id, object) in copy.held where object.phase == .managed {
            for link in object.fkChanged where !(model.held[id]?.fkChanged.contains(link) ?? false) {
                if object.fk[link] == model.fk(id, link) { copy.held[id]?.fkChanged.remove(link) }
            }
        }
        // A push carries an object's deletion, not the child's edits of it:
        // the parent's object keeps its values (a rollback then takes the
        // deletion back and leaves them, as the parent read them).
        for (id, object) in copy.held where object.phase == .deleted && model.held[id]?.phase != .deleted {
            let parent = model.held[id]
            let text = parent?.text ?? model.store.rows[id]?.text ?? object.text
            copy.held[id]?.text = text
            copy.held[id]?.readText = parent?.readText ?? text
            copy.held[id]?.textChanged = parent?.textChanged ?? false
        }
        model = copy
        // An insert the child deleted again (a cascade took it) is not pushed.
        for (id, new) in created where copy.held[id] != nil {
            guard let pushed = child.pushed[ObjectIdentifier(new)]?.parent else {
                throw mismatch("child context", "the parent has no object for the pushed insert \(id)")
            }
            handles[id] = pushed
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
        lines.append("fetch \(kind): \(got)")
        guard got == expected else {
            throw mismatch("child fetch", "fetch(\(kind)) in the child returned \(got), the model \(expected)")
        }
    }

    // MARK: Another writer

    /// Another writer changes the store at once. The context under test
    /// hears nothing of it, so it meets these changes as conflicts.
    func write(_ write: MWrite) throws {
        switch write {
        case .edit(let kind, let pick):
            // Under `.storeTrumps` a deletion of a changed row is dropped; what
            // then happens to a kept row whose to-one names a row deleted in
            // the same save is not specified, so only rows without to-ones.
            if model.policy == .storeTrumps, !MLink.holding(kind).isEmpty { return note("write: no edit") }
            guard let id = choose(model.store.rows.keys.filter { $0.kind == kind }.sorted(), pick) else { return note("write: nothing to edit") }
            // #40 item 5: a cascade the store runs deletes a row changed
            // elsewhere since the delete without a conflict.
            if gapped(5, model.policy == .error && model.cascadeDepth[id] != nil && model.held[id]?.phase == .deleted) { return }
            let text = nextText()
            let row = id.row
            try otherWriter { context in
                guard let object = try ModelAccess.find(kind, row: row, in: context) else {
                    throw LiteRecordError(.invalidObject, "the model's \(kind)/\(row) is not in the store")
                }
                ModelAccess.setText(object, text)
            }
            model.storeEdit(id, text)
            note("write{edit \(id) = \(text)}")
        case .updateAll(let kind):
            // As many edits of every row of the kind by another writer, in one
            // statement: the same conditions as one edit's, for each row.
            if model.policy == .storeTrumps, !MLink.holding(kind).isEmpty { return note("write: no updateAll") }
            let ids = model.store.rows.keys.filter { $0.kind == kind }.sorted()
            let gappedRow = ids.contains { model.policy == .error && model.cascadeDepth[$0] != nil && model.held[$0]?.phase == .deleted }
            if gapped(5, gappedRow) { return }
            let text = nextText()
            let written = try otherWriter { context in try ModelAccess.updateAllText(kind, text, in: context) }
            guard written == ids.count else {
                throw mismatch("updateAll", "updateAll(\(kind)) wrote \(written) rows; the model holds \(ids.count)")
            }
            for id in ids { model.storeEdit(id, text) }
            note("write{updateAll \(kind) = \(text), \(written) rows}")
        case .create(let kind, let pick):
            var target: MID?
            let link = MLink.holding(kind).first
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
            let row = try otherWriter { context -> Int64? in
                let object = ModelAccess.make(kind)
                ModelAccess.setText(object, text)
                context.insert(object)
                if let link, let targetRow {
                    ModelAccess.setTarget(object, link, try ModelAccess.find(link.target, row: targetRow, in: context))
                }
                try context.save()
                return object.recordID?.rowID
            }
            guard let row else { throw mismatch("write", "a write's insert has no record id") }
            var stored = MRow(text: text)
            if let link, let target { stored.fk[link] = target.row }
            let id = MID(kind: kind, row: row)
            note("write{create \(id) \(text)\(target.map { " → \($0)" } ?? "")}")
            if !model.storeInsert(id, stored) {
                throw mismatch("reused row id", "write {} gave its new \(kind) the id \(row) of an earlier record")
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
            note("write{delete \(id)}")
        }
    }

    /// Runs `body` in a context of its own and saves it: another writer, as
    /// `write {}` is, but without suspending the test (each `write {}` waits
    /// for one of the test run's two threads, which made this test wait
    /// longer than it ran when the whole suite runs in parallel). The context
    /// under test sees the same: a commit it hears nothing of.
    private func otherWriter<T>(_ body: (RecordContext) throws -> T) throws -> T {
        let context = stack.newContext()
        let result = try body(context)
        if context.hasChanges { try context.save() }
        return result
    }
}
