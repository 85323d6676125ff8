import Foundation
import PropertyBased
@testable import LiteRecord

// The steps the widened model adds to the model-based test:
// `write {}` writers merged into a main context under test — editing,
// relinking to-ones, linking and unlinking the many-to-many, deleting
// owners with their delete rules, some from a child of the write's context
// — while the main context holds pending changes; saving and deleting an
// object the merge forgot; fetches that prefetch a relationship.

/// A step of the widened model (`MOp.widened`).
enum MWideOp: Sendable, CustomStringConvertible {
    /// A `write {}` making these changes, merged into the context under test
    /// when it is a main context (`MSequence.main`).
    case mergeWrite([MMergeWrite])
    /// A `write {}` whose context makes a child: the child makes the
    /// changes and pushes them with `save()`, then the write saves.
    case writeChild([MMergeWrite])
    /// `save(in:)` and `delete(in:)` of an object the context forgot:
    /// refused with `.invalidObject` (a forgotten object refused, ForgottenObjectTests).
    case saveForgotten(UInt32)
    /// A fetch of the relationship's owners that prefetches it (Docs/Relationships.md,
    /// `relationshipKeyPathsForPrefetching`).
    case prefetch(MRead)

    var description: String {
        switch self {
        case .mergeWrite(let steps): "write{\(steps.map(\.description).joined(separator: "; "))} merged"
        case .writeChild(let steps): "write{child[\(steps.map(\.description).joined(separator: "; "))]} merged"
        case .saveForgotten(let pick): "saveForgotten(\(pick))"
        case .prefetch(let read): "fetch(\(read.owner)) prefetching \(read)"
        }
    }
}

/// What a merged writer does to any stored row, held by the context under
/// test or not.
enum MMergeWrite: Sendable, CustomStringConvertible {
    case edit(MKind, UInt32)
    case relink(MLink, UInt32, target: UInt32?)
    case link(book: UInt32, tag: UInt32, linked: Bool)
    /// Deletes a book, chapter or tag: its delete rules run in the write.
    case deleteOwner(MKind, UInt32)

    var description: String {
        switch self {
        case .edit(let kind, let pick): "edit(\(kind) \(pick))"
        case .relink(let link, let pick, let target): "relink(\(link) \(pick) → \(target.map(String.init) ?? "nil"))"
        case .link(let book, let tag, let linked): "\(linked ? "link" : "unlink")(Book \(book), Tag \(tag))"
        case .deleteOwner(let kind, let pick): "delete(\(kind) \(pick))"
        }
    }
}

extension MGenerator {
    /// Decides whether the sequence runs in a main context (one in three)
    /// and adds the widened steps between its steps. Drawn after the steps,
    /// so that a seed's other steps stay what they were.
    static func widen(_ sequence: inout MSequence, _ rng: inout Xoshiro) {
        sequence.main = Int.random(in: 0..<3, using: &rng) == 0
        var ops: [MOp] = []
        for op in sequence.ops {
            ops.append(op)
            let roll = Int.random(in: 0..<100, using: &rng)
            if sequence.main, roll < 20 {
                ops.append(.widened(mergeStep(&rng)))
            } else if roll >= 96 {
                ops.append(.widened(.prefetch(MRead.allCases.randomElement(using: &rng) ?? .bookChapters)))
            }
        }
        sequence.ops = ops
    }

    private static func mergeStep(_ rng: inout Xoshiro) -> MWideOp {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: .saveForgotten(pick(&rng))
        case 1, 2: .writeChild((0..<Int.random(in: 1...3, using: &rng)).map { _ in mergeWrite(&rng) })
        default: .mergeWrite((0..<Int.random(in: 1...2, using: &rng)).map { _ in mergeWrite(&rng) })
        }
    }

    private static func mergeWrite(_ rng: inout Xoshiro) -> MMergeWrite {
        switch Int.random(in: 0..<8, using: &rng) {
        case 0, 1: return .edit(kind(&rng), pick(&rng))
        case 2, 3:
            let link = MLink.allCases.randomElement(using: &rng) ?? .chapterBook
            let target: UInt32? = Int.random(in: 0..<5, using: &rng) == 0 ? nil : pick(&rng)
            return .relink(link, pick(&rng), target: target)
        case 4: return .link(book: pick(&rng), tag: pick(&rng), linked: Bool.random(using: &rng))
        default: return .deleteOwner([MKind.book, .chapter, .tag].randomElement(using: &rng) ?? .book, pick(&rng))
        }
    }
}

/// A merged writer's step with its picks resolved against the store.
private enum MResolvedWrite {
    case edit(MID, String, MValues?)
    case relink(MID, MLink, MID?)
    case link(book: MID, tag: MID, linked: Bool)
    case delete(MID)
}

extension ModelRunner {
    /// The main context of `stack`, as `RecordStack.mainContext` makes it
    /// (an observable context of the stack's store), without the main
    /// actor: the sequences run without suspending (see `otherWriter`).
    static func mainContext(of stack: RecordStack) -> RecordContext {
        RecordContext(store: stack.store, isObservable: true)
    }

    func widened(_ op: MWideOp) throws {
        switch op {
        case .mergeWrite(let steps): try mergedWrite(steps, child: false)
        case .writeChild(let steps): try mergedWrite(steps, child: true)
        case .saveForgotten(let pick): try saveForgotten(pick)
        case .prefetch(let read): try prefetch(read)
        }
    }

    /// One `write {}`: the model's writer (a context of its own, every
    /// related row loaded) predicts the outcome, the change set and the
    /// store; then the main context under test is merged into as
    /// `RecordStack.write` does after its commit (`performWrite`, then
    /// `merge(_:columns:)` with the write's change set and written columns —
    /// the two calls `write` makes, without its queue and the hop to the
    /// main actor).
    private func mergedWrite(_ steps: [MMergeWrite], child: Bool) throws {
        // In a context no write merges into, another writer's relationship
        // changes leave stale lists, which the contract does not specify.
        guard main else { return note("merged write: only in a main-context sequence") }
        var writer = ReferenceModel(store: model.store)
        let plan = resolve(steps, &writer)
        guard !plan.isEmpty else { return note("merged write: nothing to do") }
        let before = model.store
        if child {
            // A push carries what the child changed relative to its parent:
            // a to-one set and set back is no change (as ModelRunner.child).
            for (id, object) in writer.held where object.phase == .managed {
                for link in object.fkChanged where object.fk[link] == writer.store.rows[id]?.fk[link] { writer.held[id]?.fkChanged.remove(link) }
            }
        }
        let expected = writer.save(realIDs: [:])
        coverage.ops.insert(child ? .writeChild : .mainContextMerge)
        if plan.contains(where: { if case .delete = $0 { true } else { false } }) { coverage.ops.insert(.writeDeleteOwner) }
        let described = "write{\(child ? "child: " : "")\(plan.map(Self.describe).joined(separator: "; "))}"
        var failure: LiteRecordError?
        var changes = ChangeSet()
        var columns: [RecordID: WrittenColumns] = [:]
        do {
            (_, changes, columns) = try stack.performWrite { context in
                guard child else { return try Self.apply(plan, in: context) }
                let scratch = context.makeChildContext()
                try Self.apply(plan, in: scratch)
                try scratch.save()
            }
        } catch let error as LiteRecordError {
            failure = error
        }
        note("\(described) → \(failure.map { "\($0.kind)" } ?? "ok")")
        if let failure {
            guard expected.errors.contains(failure.kind) else {
                throw mismatch(
                    "merged write outcome: \(expected.errors.isEmpty ? "success" : expected.errors.map { "\($0)" }.sorted().joined(separator: " or ")), got \(failure.kind)",
                    failure.message)
            }
            return try compareStore()
        }
        guard expected.errors.isEmpty else {
            throw mismatch("merged write outcome: \(expected.errors.map { "\($0)" }.sorted().joined(separator: " or ")), got success", described)
        }
        let got = MEvent(changes)
        guard got.inserted.isEmpty, got.deleted == expected.deleted, expected.updated.isSubset(of: got.updated),
            got.updated.isSubset(of: expected.updated.union(expected.mayUpdate))
        else {
            throw mismatch(
                "merged write change set", "reported \(got), the model +[] ~\(expected.updated.sorted()) (perhaps \(expected.mayUpdate.sorted())) -\(expected.deleted.sorted())")
        }
        if !changes.isEmpty { expectedEvents.append(got) }
        model.store = writer.store
        context.merge(changes, columns: columns)
        for id in model.merge(from: before, deleted: got.deleted, updated: got.updated) {
            guard let object = handles[id] else { continue }
            handles[id] = nil
            forgotten.append(object)
            let state = object.recordState
            guard state.isForgotten, !state.belongs(to: context) else {
                throw mismatch("merge forgets", "\(id), deleted by the write without edits here, is \(state.belongs(to: context) ? "still held" : "not marked forgotten")")
            }
        }
        forgotten = Array(forgotten.suffix(8))
        try compareStore()
        try compareMerged()
    }

    /// The model's writer takes each step on the rows it can (a step naming
    /// nothing, or changing nothing, is left out).
    private func resolve(_ steps: [MMergeWrite], _ writer: inout ReferenceModel) -> [MResolvedWrite] {
        var plan: [MResolvedWrite] = []
        func rows(_ kind: MKind, _ writer: ReferenceModel) -> [MID] {
            writer.store.rows.keys.filter { $0.kind == kind && writer.held[$0]?.phase != .deleted }.sorted()
        }
        for step in steps {
            switch step {
            case .edit(let kind, let pick):
                guard let id = choose(rows(kind, writer), pick) else { continue }
                writer.load(id)
                let text = nextText()
                let values = kind == .note ? writer.held[id].map { nextValues(from: $0.values) } : nil
                writer.edit(id, text, values: values)
                plan.append(.edit(id, text, values))
            case .relink(let link, let pick, let targetPick):
                guard let id = choose(rows(link.holder, writer), pick) else { continue }
                let target = targetPick.flatMap { choose(rows(link.target, writer), $0) }
                guard writer.fk(id, link) != target?.row else { continue }
                // `relate`, not `setFK`: a one-to-one keeps both sides paired.
                writer.relate(id, link, target?.row)
                plan.append(.relink(id, link, target))
            case .link(let bookPick, let tagPick, let linked):
                guard let book = choose(rows(.book, writer), bookPick), let tag = choose(rows(.tag, writer), tagPick),
                    writer.isLinked(MPair(book: book.row, tag: tag.row)) != linked
                else { continue }
                writer.setLink(book: book.row, tag: tag.row, linked)
                plan.append(.link(book: book, tag: tag, linked: linked))
            case .deleteOwner(let kind, let pick):
                guard let id = choose(rows(kind, writer), pick) else { continue }
                // As in the context (ModelRunner.delete): Tag.books' `.deny`
                // after a link change of the same write is not specified.
                var probe = writer
                if probe.delete(id).contains(where: { doomed in doomed.kind == .tag && writer.links.keys.contains { $0.tag == doomed.row } }) { continue }
                writer.delete(id)
                plan.append(.delete(id))
            }
        }
        return plan
    }

    private static func describe(_ step: MResolvedWrite) -> String {
        switch step {
        case .edit(let id, let text, let values): "edit \(id) = \(text)\(values.map { ", \($0)" } ?? "")"
        case .relink(let id, let link, let target): "\(id).\(link) = \(target.map(String.init(describing:)) ?? "nil")"
        case .link(let book, let tag, let linked): "\(linked ? "link" : "unlink") \(book)–\(tag)"
        case .delete(let id): "delete \(id)"
        }
    }

    private static func apply(_ plan: [MResolvedWrite], in context: RecordContext) throws {
        func object(_ id: MID) throws -> any Entity {
            guard let found = try ModelAccess.find(id.kind, row: id.row, in: context) else {
                throw LiteRecordError(.invalidObject, "the model's \(id) is not in the store")
            }
            return found
        }
        for step in plan {
            switch step {
            case .edit(let id, let text, let values):
                let found = try object(id)
                ModelAccess.setText(found, text)
                if let values { ModelAccess.setValues(found, values) }
            case .relink(let id, let link, let target):
                ModelAccess.setTarget(try object(id), link, try target.map(object))
            case .link(let book, let tag, let linked):
                ModelAccess.setLinked(book: try object(book), tag: try object(tag), linked, fromTag: false)
            case .delete(let id):
                context.delete(try object(id))
            }
        }
    }

    /// After a merge: every object the model holds is held, with the values
    /// and to-ones the merge rules give it.
    private func compareMerged() throws {
        coverage.channels.insert(.heldAttributes)
        for (id, object) in handles.sorted(by: { $0.key < $1.key }) {
            guard let held = model.held[id] else { continue }
            let state = object.recordState
            guard state.belongs(to: context), state.phase != .unmanaged else {
                throw mismatch("merge keeps", "the context no longer holds \(id), which the model keeps")
            }
            guard held.phase != .deleted else { continue }
            let text = ModelAccess.text(object)
            if text != held.text { throw mismatch("merged values", "\(id).text is \(text), the model \(held.text)") }
            let values = ModelAccess.values(object)
            if values != held.values { throw mismatch("merged values", "\(id) holds \(values), the model \(held.values)") }
            try compareRelationships(id, object)
        }
    }

    /// A forgotten object refused: an object the context forgot (a merge, a reset)
    /// is never saved as a new record, nor deleted; both are refused with
    /// `.invalidObject`, and nothing else changes.
    private func saveForgotten(_ pick: UInt32) throws {
        guard !forgotten.isEmpty else { return note("saveForgotten: nothing forgotten") }
        let object = forgotten[Int(pick) % forgotten.count]
        ModelAccess.setText(object, nextText())
        var failures: [LiteRecordError.Kind?] = []
        do {
            try object.save(in: context)
            failures.append(nil)
        } catch let error as LiteRecordError {
            failures.append(error.kind)
        }
        do {
            try object.delete(in: context)
            failures.append(nil)
        } catch let error as LiteRecordError {
            failures.append(error.kind)
        }
        coverage.ops.insert(.reinsertForgotten)
        note("save(in:) and delete(in:) of a forgotten \(ModelAccess.kind(of: object).map(String.init(describing:)) ?? "?") → \(failures.map { $0.map { "\($0)" } ?? "done" })")
        guard failures == [.invalidObject, .invalidObject] else {
            throw mismatch("forgotten object: invalidObject, got \(failures.map { $0.map { "\($0)" } ?? "success" })", "a forgotten object was saved or deleted")
        }
        try compareStore()
    }
}
