import Foundation
import LiteRecordTesting
import Testing
import LiteRecord

// The entity of Docs/Queries.md's "Set-based updates", verbatim.
@Entity final class Todo {
    var title = ""
    var priority = 0
    var done = false
    var assignee: String?
}

private let entities: [any Entity.Type] = [UANote.self, UAFolder.self, UAStamped.self, UAChecked.self, UALoose.self, UAHandChecked.self]

/// Three notes: "alpha" (1 star), "beta" (1 star, archived), "gamma" (5 stars).
private func seeded(history: Bool = false) throws -> RecordStack {
    let stack = try RecordStack(inMemoryWith: entities, history: history ? .enabled : .disabled)
    let context = stack.newContext()
    context.insert(UANote("alpha words", slug: "alpha", stars: 1))
    let beta = UANote("beta words", slug: "beta", stars: 1)
    beta.archived = true
    context.insert(beta)
    context.insert(UANote("gamma words", slug: "gamma", stars: 5))
    try context.save()
    return stack
}

/// The stored notes by slug, read by a fresh context.
private func stored(_ stack: RecordStack) throws -> [String: UANote] {
    Dictionary(uniqueKeysWithValues: try UANote.findAll(in: stack.newContext()).map { ($0.slug, $0) })
}

private let fewStars = #Predicate<UANote> { $0.stars < 2 }

/// `Entity.updateAll(matching:set:to:in:)` and its several-attribute form
/// (Docs/Queries.md, "Set-based updates"): one `UPDATE` committed at once, meaning what fetching the
/// records, setting the attribute and saving would mean.
@Suite struct UpdateAllTests {
    // MARK: The statement

    @Test func setsTheMatchingRowsWithOneStatementAndNoRead() throws {
        let stack = try seeded()
        let before = try stored(stack)
        let (changed, statements) = try stack.recordingSQL {
            try UANote.updateAll(matching: fewStars, set: \.stars, to: 3, in: stack.newContext())
        }
        #expect(changed == 2)
        let writes = statements.filter { !$0.hasPrefix("BEGIN") && !$0.hasPrefix("COMMIT") }
        #expect(writes.count == 1, "\(statements)")
        #expect(writes.first?.hasPrefix("UPDATE \"UANote\" SET \"stars\" = ?, \"Z_OPT\" = \"Z_OPT\" + 1 WHERE") == true, "\(writes)")
        #expect(writes.first?.hasSuffix("RETURNING \"Z_PK\"") == true)
        let after = try stored(stack)
        #expect(after.mapValues(\.stars) == ["alpha": 3, "beta": 3, "gamma": 5])
        for slug in ["alpha", "beta"] {
            #expect(after[slug]?.recordVersion == (before[slug]?.recordVersion).map { $0 + 1 }, "\(slug) moved on one version")
        }
        #expect(after["gamma"]?.recordVersion == before["gamma"]?.recordVersion, "a row not matched keeps its version")
    }

    /// A row already holding the value is left as a save leaves an object
    /// whose setter changed nothing: not written, not counted, same version.
    @Test func leavesRowsAlreadyHoldingTheValue() throws {
        let stack = try seeded()
        let before = try stored(stack)
        #expect(try UANote.updateAll(matching: fewStars, set: \.archived, to: true, in: stack.newContext()) == 1)
        let after = try stored(stack)
        #expect(after["alpha"]?.archived == true)
        #expect(after["beta"]?.recordVersion == before["beta"]?.recordVersion)
        #expect(try UANote.updateAll(matching: fewStars, set: \.archived, to: true, in: stack.newContext()) == 0)
        #expect(try UANote.updateAll(matching: #Predicate { $0.stars > 100 }, set: \.archived, to: false, in: stack.newContext()) == 0)
    }

    /// A value that is not `Equatable` is a change whatever it was, as for
    /// its setter: every matched row is written.
    @Test func aValueThatIsNotEquatableWritesEveryRow() throws {
        let stack = try seeded()
        #expect(try UANote.updateAll(matching: fewStars, set: \.extra, to: UAExtra(note: "x"), in: stack.newContext()) == 2)
        #expect(try UANote.updateAll(matching: fewStars, set: \.extra, to: UAExtra(note: "x"), in: stack.newContext()) == 2)
        #expect(try stored(stack)["alpha"]?.extra.note == "x")
    }

    @Test func setsSeveralAttributesAndTheLastAssignmentWins() throws {
        let stack = try seeded()
        let changed = try UANote.updateAll(
            matching: fewStars, .set(\.stars, to: 0), .set(\.reviewer, to: "Kim"), .set(\.labels, to: ["old"]),
            .set(\.stars, to: 4), in: stack.newContext())
        #expect(changed == 2)
        let after = try stored(stack)
        #expect(after["alpha"]?.stars == 4 && after["beta"]?.stars == 4)
        #expect(after["alpha"]?.reviewer == "Kim" && after["alpha"]?.labels == ["old"])
        #expect(after["gamma"]?.reviewer == nil)
        // A row is written when any assignment changes it.
        let four = #Predicate<UANote> { $0.stars == 4 }
        #expect(try UANote.updateAll(matching: four, .set(\.stars, to: 4), .set(\.reviewer, to: "Kim"), in: stack.newContext()) == 0)
        #expect(try UANote.updateAll(matching: four, .set(\.stars, to: 4), .set(\.reviewer, to: nil), in: stack.newContext()) == 2)
        #expect(try stored(stack)["alpha"]?.reviewer == nil, "an optional set to nil")
    }

    // MARK: Values stored as a save stores them

    /// Text of searchable and unique attributes is stored in NFC, as a save
    /// stores it; a canonically equivalent spelling is still a change for a
    /// macro entity's setter (byte for byte), so it is written.
    @Test func storesCanonicalTextAsASaveDoes() throws {
        let stack = try seeded()
        let decomposed = "cafe\u{301} cre\u{300}me"
        let composed = decomposed.precomposedStringWithCanonicalMapping
        #expect(try UANote.updateAll(matching: #Predicate { $0.slug == "alpha" }, set: \.title, to: decomposed, in: stack.newContext()) == 1)
        #expect(try UANote.updateAll(matching: #Predicate { $0.slug == "gamma" }, set: \.slug, to: "gamme\u{301}", in: stack.newContext()) == 1)
        let after = try stored(stack)
        #expect(Array(try #require(after["alpha"]).title.utf8) == Array(composed.utf8))
        #expect(after.keys.contains { Array($0.utf8) == Array("gammé".precomposedStringWithCanonicalMapping.utf8) })
        // The NFC spelling is what is stored: setting it again changes nothing.
        #expect(try UANote.updateAll(matching: #Predicate { $0.stars == 1 }, set: \.title, to: composed, in: stack.newContext()) == 1)
        #expect(try UANote.updateAll(matching: #Predicate { $0.stars == 1 }, set: \.title, to: composed, in: stack.newContext()) == 0)
    }

    @Test func aValueASaveRefusesIsRefusedAndNothingRuns() throws {
        let stack = try seeded()
        let context = stack.newContext()
        let (error, statements) = stack.recordingSQL {
            #expect(throws: LiteRecordError.self) { try UANote.updateAll(matching: fewStars, set: \.score, to: .nan, in: context) }
        }
        #expect(error?.kind == .validationFailed)
        #expect(error?.message.contains("UANote.score") == true, "\(String(describing: error))")
        #expect(statements.isEmpty, "\(statements)")
        // The save refuses the same value with the same kind.
        let note = try #require(try UANote.findFirst(matching: fewStars, in: context))
        note.score = .nan
        let saveError = try #require(throws: LiteRecordError.self) { try context.save() }
        #expect(saveError.kind == error?.kind)
        let zero = try #require(throws: LiteRecordError.self) {
            try UANote.updateAll(matching: fewStars, set: \.score, to: -0.0, in: stack.newContext())
        }
        #expect(zero.kind == .validationFailed)
    }

    // MARK: Refusals

    @Test func onlyStoredAttributesCanBeSet() throws {
        let stack = try seeded()
        let context = stack.newContext()
        let relationship = try #require(throws: LiteRecordError.self) {
            try UANote.updateAll(matching: fewStars, set: \.folder, to: nil, in: context)
        }
        #expect(relationship.kind == .unknownAttribute)
        #expect(relationship.message.contains("\\UANote.folder is the relationship folder of UANote"), "\(relationship.message)")
        let transient = try #require(throws: LiteRecordError.self) {
            try UANote.updateAll(matching: fewStars, .set(\.stars, to: 9), .set(\.scratch, to: 1), in: context)
        }
        #expect(transient.kind == .unknownAttribute)
        #expect(transient.message.contains("\\UANote.scratch is not a stored attribute of UANote"), "\(transient.message)")
        let inside = try #require(throws: LiteRecordError.self) {
            try UANote.updateAll(matching: fewStars, set: \.extra.note, to: "x", in: context)
        }
        #expect(inside.kind == .unknownAttribute)
        let computed = try #require(throws: LiteRecordError.self) {
            try UANote.updateAll(matching: fewStars, set: \.summary, to: "x", in: context)
        }
        #expect(computed.kind == .unknownAttribute)
        #expect(computed.message.contains("not a stored attribute of UANote"), "\(computed.message)")
        #expect(try stored(stack)["alpha"]?.stars == 1, "nothing written")
    }

    @Test func aPredicateWithoutExactTranslationIsRefused() throws {
        let stack = try seeded()
        let error = try #require(throws: LiteRecordError.self) {
            try UANote.updateAll(matching: #Predicate { $0.reviewer! == "Kim" }, set: \.stars, to: 0, in: stack.newContext())
        }
        #expect(error.kind == .unsupportedPredicate)
        #expect(try stored(stack).values.allSatisfy { $0.stars != 0 })
    }

    /// An entity whose saves run Swift code on each object cannot be updated
    /// without loading them: refused, naming the hook.
    @Test func entitiesWithSaveHooksAreRefused() throws {
        #expect(UAStamped.saveHooks == [.willSave])
        #expect(UAChecked.saveHooks == [.validateForSave])
        #expect(MacroPerson.saveHooks == [.willSave, .validateForSave])
        #expect(UANote.saveHooks.isEmpty)
        let stack = try RecordStack(inMemoryWith: entities)
        let context = stack.newContext()
        let stamped = UAStamped()
        context.insert(stamped)
        try context.save()
        let cases: [(String, () throws -> Int)] = [
            ("willSave()", { try UAStamped.updateAll(matching: #Predicate { _ in true }, set: \.title, to: "x", in: context) }),
            ("validateForSave()", { try UAChecked.updateAll(matching: #Predicate { _ in true }, set: \.title, to: "x", in: context) }),
            ("validateForSave()", { try UAHandChecked.updateAll(matching: #Predicate { _ in true }, set: \.title, to: "x", in: context) }),
        ]
        for (hook, attempt) in cases {
            let error = try #require(throws: LiteRecordError.self) { _ = try attempt() }
            #expect(error.kind == .validationFailed)
            #expect(error.message.contains(hook) && error.message.contains("saveHooks"), "\(error.message)")
        }
        #expect(try UAStamped.findAll(in: stack.newContext()).map(\.title) == [""])
    }

    @Test func aChildContextIsRefused() throws {
        let stack = try seeded()
        let child = stack.newContext().makeChildContext()
        let error = try #require(throws: LiteRecordError.self) {
            try UANote.updateAll(matching: fewStars, set: \.stars, to: 0, in: child)
        }
        #expect(error.kind == .invalidObject)
        #expect(error.message.contains("child context"), "\(error.message)")
    }

    @Test func aReadOnlyStackRefusesAsASaveDoes() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("notes.sqlite")
        let writer = try RecordStack(storeAt: url, entities: entities)
        let context = writer.newContext()
        context.insert(UANote("alpha", slug: "alpha", stars: 1))
        try context.save()
        try writer.close()
        let stack = try RecordStack(storeAt: url, entities: entities, readOnly: true)
        let error = try #require(throws: LiteRecordError.self) {
            try UANote.updateAll(matching: fewStars, set: \.stars, to: 0, in: stack.newContext())
        }
        #expect(error.kind == .readOnlyStore)
        #expect(try UANote.findAll(in: stack.newContext()).map(\.stars) == [1])
        try stack.close()
    }

    // MARK: Constraints

    @Test func aUniqueViolationIsAConstraintViolationAndWritesNothing() throws {
        let stack = try seeded(history: true)
        let before = try stored(stack)
        let error = try #require(throws: LiteRecordError.self) {
            try UANote.updateAll(matching: fewStars, set: \.slug, to: "same", in: stack.newContext())
        }
        #expect(error.kind == .constraintViolation)
        let after = try stored(stack)
        #expect(Set(after.keys) == ["alpha", "beta", "gamma"])
        #expect(after.mapValues(\.recordVersion) == before.mapValues(\.recordVersion))
        #expect(try stack.fetchHistory(after: nil).count == 1, "only the seeding transaction")
    }

    @Test func aNotNullViolationIsAConstraintViolationAsForASave() throws {
        let stack = try RecordStack(inMemoryWith: entities)
        let context = stack.newContext()
        context.insert(UALoose())
        try context.save()
        let error = try #require(throws: LiteRecordError.self) {
            try UALoose.updateAll(matching: #Predicate { _ in true }, set: \.note, to: nil, in: context)
        }
        #expect(error.kind == .constraintViolation)
        #expect(try UALoose.findAll(in: stack.newContext()).map(\.note) == [""])
        let loose = try #require(try UALoose.findAll(in: context).first)
        loose.note = nil
        #expect(throws: LiteRecordError.self) { try context.save() }
    }

    // MARK: Search

    @Test func theSearchIndexFollowsTheNewText() throws {
        let stack = try seeded()
        let context = stack.newContext()
        #expect(try UANote.updateAll(matching: fewStars, set: \.title, to: "quartz crystal", in: context) == 2)
        #expect(Set(try UANote.search("quartz", in: context).map(\.slug)) == ["alpha", "beta"])
        #expect(try UANote.search("alpha", in: context).isEmpty, "the old words are gone")
        #expect(try UANote.search("gamma", in: context).map(\.slug) == ["gamma"])
        #expect(try stack.searchIndexProblem("UANote") == nil)
    }

    // MARK: The calling context's objects

    @Test func heldObjectsTakeTheNewValueAndVersion() throws {
        let stack = try seeded()
        let context = stack.newContext()
        let alpha = try #require(try UANote.findFirst(byAttribute: "slug", withValue: "alpha", in: context))
        let version = try #require(alpha.recordVersion)
        try UANote.updateAll(matching: fewStars, set: \.stars, to: 3, in: context)
        #expect(alpha.stars == 3)
        #expect(alpha.recordVersion == version + 1)
        #expect(!context.hasChanges)
        alpha.reviewer = "Kim"
        try context.save()  // no conflict with the context's own update
        #expect(try stored(stack)["alpha"]?.reviewer == "Kim")
    }

    /// Unsaved edits survive: one of another attribute saves without a
    /// conflict; one of the attribute updated meets the conflict, as after
    /// any other write of that attribute.
    @Test func heldObjectsKeepTheirUnsavedEdits() throws {
        let stack = try seeded()
        let context = stack.newContext()
        let alpha = try #require(try UANote.findFirst(byAttribute: "slug", withValue: "alpha", in: context))
        let beta = try #require(try UANote.findFirst(byAttribute: "slug", withValue: "beta", in: context))
        alpha.reviewer = "Kim"
        beta.stars = 7
        try UANote.updateAll(matching: fewStars, set: \.stars, to: 3, in: context)
        #expect(alpha.stars == 3 && alpha.reviewer == "Kim")
        #expect(beta.stars == 7, "the edit is kept")
        let error = try #require(throws: LiteRecordError.self) { try context.save() }
        #expect(error.kind == .conflict)
        #expect(error.message.contains("stars"), "\(error.message)")
        context.mergePolicy = .objectTrumps
        try context.save()
        let after = try stored(stack)
        #expect(after["alpha"]?.reviewer == "Kim" && after["alpha"]?.stars == 3)
        #expect(after["beta"]?.stars == 7)
    }

    /// An object whose edits were already behind the store (another context
    /// changed its record after it was read) takes the stored values but
    /// keeps the version its edits are based on: the update does not excuse
    /// the other writer's change, and the next save meets it. Taking the new
    /// version would let the edit overwrite that change unseen.
    @Test func anObjectAlreadyBehindTheStoreKeepsItsVersion() throws {
        let stack = try seeded()
        let context = stack.newContext()
        let alpha = try #require(try UANote.findFirst(byAttribute: "slug", withValue: "alpha", in: context))
        let version = try #require(alpha.recordVersion)
        let other = stack.newContext()
        let elsewhere = try #require(try UANote.findFirst(byAttribute: "slug", withValue: "alpha", in: other))
        elsewhere.reviewer = "Lee"
        try other.save()
        alpha.reviewer = "Kim"
        try UANote.updateAll(matching: fewStars, set: \.stars, to: 3, in: context)
        #expect(alpha.stars == 3 && alpha.reviewer == "Kim")
        #expect(alpha.recordVersion == version, "the version its edit is based on")
        let error = try #require(throws: LiteRecordError.self) { try context.save() }
        #expect(error.kind == .conflict)
        #expect(try stored(stack)["alpha"]?.reviewer == "Lee", "the other writer's change stands")
        context.mergePolicy = .storeTrumps
        try context.save()
        #expect(try stored(stack)["alpha"]?.reviewer == "Lee")
    }

    /// Rows the context is deleting are left out, as a fetch leaves their
    /// objects out; the deletion then saves without a conflict.
    @Test func rowsBeingDeletedAreLeftOut() throws {
        let stack = try seeded()
        let context = stack.newContext()
        let alpha = try #require(try UANote.findFirst(byAttribute: "slug", withValue: "alpha", in: context))
        context.delete(alpha)
        #expect(try UANote.updateAll(matching: fewStars, set: \.stars, to: 3, in: context) == 1)
        try context.save()
        #expect(try stored(stack).mapValues(\.stars) == ["beta": 3, "gamma": 5])
    }

    // MARK: Other contexts, observers, history

    /// After `write`, the main context's objects hold the new value; one
    /// with an unsaved edit of another attribute keeps it and saves without
    /// a false conflict.
    @Test @MainActor func theMainContextMergesAWritesUpdate() async throws {
        let stack = try seeded()
        let main = stack.mainContext
        let alpha = try #require(try UANote.findFirst(byAttribute: "slug", withValue: "alpha", in: main))
        let gamma = try #require(try UANote.findFirst(byAttribute: "slug", withValue: "gamma", in: main))
        alpha.reviewer = "Kim"
        let changed = try await stack.write { context in
            try UANote.updateAll(matching: #Predicate { $0.stars < 2 }, set: \.stars, to: 3, in: context)
        }
        #expect(changed == 2)
        #expect(alpha.stars == 3 && alpha.reviewer == "Kim")
        #expect(gamma.stars == 5)
        try main.save()
        let after = try stored(stack)
        #expect(after["alpha"]?.reviewer == "Kim" && after["alpha"]?.stars == 3)
        #expect(after["beta"]?.stars == 3)
    }

    /// Inside `write`, the write's own objects follow their rows, and the
    /// save that ends the write meets no conflict with the update.
    @Test @MainActor func aWritesOwnObjectsFollowTheUpdate() async throws {
        let stack = try seeded()
        let (stars, reviewer) = try await stack.write { context in
            let alpha = try #require(try UANote.findFirst(byAttribute: "slug", withValue: "alpha", in: context))
            alpha.reviewer = "Kim"
            try UANote.updateAll(matching: #Predicate { $0.stars < 2 }, set: \.stars, to: 3, in: context)
            return (alpha.stars, alpha.reviewer)
        }
        #expect(stars == 3 && reviewer == "Kim")
        let after = try stored(stack)
        #expect(after["alpha"]?.stars == 3 && after["alpha"]?.reviewer == "Kim")
    }

    @Test @MainActor func aWritesUpdateConflictsWithAnEditOfTheSameAttribute() async throws {
        let stack = try seeded()
        let main = stack.mainContext
        let beta = try #require(try UANote.findFirst(byAttribute: "slug", withValue: "beta", in: main))
        beta.stars = 7
        try await stack.write { context in
            _ = try UANote.updateAll(matching: #Predicate { $0.stars < 2 }, set: \.stars, to: 3, in: context)
        }
        #expect(beta.stars == 7)
        let error = try #require(throws: LiteRecordError.self) { try main.save() }
        #expect(error.kind == .conflict)
    }

    @Test func subscribersReceiveTheChangeSet() async throws {
        let stack = try seeded()
        var changes = stack.changes.makeAsyncIterator()
        let context = stack.newContext()
        let ids = try UANote.findAll(matching: fewStars, in: context).compactMap(\.recordID)
        try UANote.updateAll(matching: fewStars, set: \.stars, to: 3, in: context)
        let change = try #require(await changes.next())
        #expect(Set(change.updated) == Set(ids))
        #expect(change.inserted.isEmpty && change.deleted.isEmpty)
    }

    @Test @MainActor func anObservedQueryIsEvaluatedAgain() async throws {
        let stack = try seeded()
        let observation = stack.mainContext.observe(FetchRequest<UANote>(predicate: #Predicate { $0.stars == 3 }))
        var results = observation.makeAsyncIterator()
        let first = try #require(await results.next())
        #expect(first.isEmpty)
        try await stack.write { context in
            _ = try UANote.updateAll(matching: #Predicate { $0.stars < 2 }, set: \.stars, to: 3, in: context)
        }
        let second = try #require(await results.next())
        #expect(Set(second.map(\.slug)) == ["alpha", "beta"])
    }

    @Test func historyRecordsOneTransactionOfUpdates() throws {
        let stack = try seeded(history: true)
        let context = stack.newContext()
        context.transactionAuthor = "janitor"
        let ids = try UANote.findAll(matching: fewStars, in: context).compactMap(\.recordID)
        try UANote.updateAll(matching: fewStars, set: \.stars, to: 3, in: context)
        try UANote.updateAll(matching: fewStars, .set(\.reviewer, to: "Kim"), .set(\.archived, to: true), in: context)
        let history = try stack.fetchHistory(after: nil)
        #expect(history.count == 2, "seeding and the first update; the second matched nothing")
        let update = try #require(history.last)
        #expect(update.author == "janitor")
        #expect(Set(update.changes.map(\.recordID)) == Set(ids))
        #expect(update.changes.allSatisfy { $0.kind == .update && $0.updatedAttributes == ["stars"] })

        try UANote.updateAll(matching: #Predicate { $0.stars == 3 }, .set(\.reviewer, to: "Kim"), .set(\.archived, to: true), in: context)
        let second = try #require(try stack.fetchHistory(after: update.token).first)
        #expect(second.changes.allSatisfy { $0.updatedAttributes == ["archived", "reviewer"] })
    }

    @Test func theGuidesExampleRuns() throws {
        // --- Docs/Queries.md, "Set-based updates" ---
        let stack = try RecordStack(inMemoryWith: [Todo.self])
        let context = stack.newContext()
        for (title, priority) in [("Ship", 3), ("Tidy", 1), ("Sweep", 1)] {
            let todo = Todo()
            todo.title = title
            todo.priority = priority
            context.insert(todo)
        }
        try context.save()

        // One UPDATE, committed at once; no object is loaded.
        let closed = try Todo.updateAll(
            matching: #Predicate { $0.priority < 2 },
            set: \.done, to: true, in: context)  // 2
        // Several attributes at once: a record changes when any of them does.
        let cleared = try Todo.updateAll(
            matching: #Predicate { $0.done },
            .set(\.priority, to: 0), .set(\.assignee, to: nil), in: context)  // 2
        // --- end ---
        #expect(closed == 2)
        #expect(cleared == 2)
        let stored = try Todo.findAll(sortedBy: [SortDescriptor(\.title)], in: stack.newContext())
        #expect(stored.map(\.done) == [false, true, true])  // Ship, Sweep, Tidy
        #expect(stored.map(\.priority) == [3, 0, 0])
    }

    // MARK: The main context's form

    @Test(.inMemoryStack(entities: [UANote.self, UAFolder.self])) @MainActor
    func theMainContextFormsUseTheDefaultStack() throws {
        let context = RecordStack.mainContext
        context.insert(UANote("one", slug: "one", stars: 1))
        context.insert(UANote("two", slug: "two", stars: 4))
        try context.save()
        #expect(try UANote.updateAll(matching: #Predicate { $0.stars < 2 }, set: \.archived, to: true) == 1)
        #expect(try UANote.updateAll(matching: #Predicate { _ in true }, .set(\.stars, to: 0), .set(\.archived, to: false)) == 2)
        #expect(try UANote.findAll(in: RecordStack.current().newContext()).allSatisfy { $0.stars == 0 && !$0.archived })
    }
}
