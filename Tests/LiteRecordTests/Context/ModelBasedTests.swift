import Foundation
import PropertyBased
import Testing
import LiteRecord

/// The model-based test: random sequences of creates, edits,
/// relationship changes, deletions under every delete rule, fetches, reads,
/// saves under each merge policy (changed mid-sequence), child and
/// grandchild contexts pushing (set-based operations refused there), other
/// writers' edits, creates, `updateAll`, `deleteAll`, `truncateAll`,
/// `findFirstOrCreate` and relinks in between, `reset` and the re-insert of a
/// forgotten object, rollbacks and refreshes run against LiteRecord and
/// against a reference model of the contract in plain Swift (everything
/// loaded, rules applied in memory: Support/ReferenceModel*.swift). After
/// every save the store (rows, values of every stored kind, versions), the
/// context's objects (values and to-ones) and the change set must be what the
/// model says; after every step, `stack.changes` and (in a quarter of the
/// sequences) the history. In a third of the sequences the context under
/// test is a main context, which `write {}` writers merge into while it holds
/// pending changes: they edit, relink to-ones, link and unlink, delete owners
/// under their delete rules, some from a child of the write's context, and
/// the merged objects, the forgotten ones and the next save must be what
/// Docs/Concurrency.md says (Support/ModelRunner+Merge.swift); fetches that
/// prefetch a relationship run in every kind of sequence. The `[model]` line
/// prints the coverage against the lists of Support/ModelCoverage.swift.
///
/// Environment: `LITERECORD_MODEL_SEQUENCES` (default 2,000),
/// `LITERECORD_MODEL_LENGTH` (most steps per sequence, default 40),
/// `LITERECORD_MODEL_SEED` (the first sequence's seed; a failure prints the
/// seed that reproduces it with `LITERECORD_MODEL_SEQUENCES=1`),
/// `LITERECORD_MODEL_ALL_FAILURES=1` (keep going after a failure and report
/// each distinct one), `LITERECORD_MODEL_NO_GAPS=1` (run without the known
/// gaps below), `LITERECORD_MODEL_TRACE=1` (print each seed before it runs,
/// to find a sequence that crashes; `=steps` also prints each step),
/// `LITERECORD_MODEL_POLICY=error|objectTrumps|storeTrumps` (every sequence
/// under that merge policy, its steps unchanged: for a proof run after one
/// policy's bug, MGenerator.forcePolicy).
@Suite struct ModelBasedTests {
    /// The first seed of the default run: fixed, so that `make test` runs the
    /// same sequences on every machine. `LITERECORD_MODEL_SEED` explores others.
    static let defaultFirstSeed: UInt64 = 1

    /// Known bugs the test finds on `main`, each by a number of its own (the
    /// `gapped(_:)` calls name them).
    /// Each entry avoids exactly the combination of steps that meets that
    /// bug (see `ModelRunner.gapped(_:)`), and the `[model]` line names the
    /// entries that are on and how often each avoided a step. Remove an
    /// entry once its fix is merged.
    ///
    /// Entries 2, 3, 4, 5, 8, 11 and 14 were removed when their
    /// fixes were merged: 6,000 sequences from seed 1 with no gap on met none
    /// of them (their `gapped` calls stay, inert, to turn one back on).
    /// Two found later are gone too: a `refresh(_:mergeChanges: false)`
    /// of a moved object left it in its new owner's loaded list (fixed, and
    /// `RefreshMovedObjectTests`), and a save under `.storeTrumps` after a
    /// link change that seemed to overwrite a newer text (the model's: it did
    /// not follow the refresh that reading the link's list does).
    ///
    /// Found by the widened model in a run of 20,000 sequences from
    /// seed 100001 (`LITERECORD_MODEL_SEED=<seed> LITERECORD_MODEL_SEQUENCES=1`
    /// replays each), all fixed:
    /// - 102268: under `.storeTrumps` set after a to-one was cleared, on a
    ///   chapter whose text `updateAll` changed elsewhere, the save wrote
    ///   nothing (StoreTrumpsToOneBeforePolicyTests).
    /// - 105602: under `.storeTrumps`, a loaded cascade's paragraph changed
    ///   elsewhere was kept still naming its deleted chapter: COMMIT failed on
    ///   a foreign key (StoreTrumpsKeptCascadeTests).
    /// - 105919: the model's, not LiteRecord's: it nullified a note another
    ///   writer deleted when a child deleted its book, and expected
    ///   `.conflict` (ModelRunner.child follows the parent's object now).
    ///
    /// A run of 8,000 sequences from seed 300001 found three more, all the
    /// model's: 304643 (the same `.nullify` of a gone note, in the context
    /// itself: `followGoneNullify`), 306758 (under `.error`, a conflict and
    /// a `.unique` clash with another writer's insert in one save: either
    /// error may be reported) and 307611 (a child's cascade that strands a
    /// reference to the parent's unsaved insert: not specified, left alone
    /// as in the context).
    ///
    /// 8,000 sequences from seed 500001 with `LITERECORD_AUDIT_CHANGES=1`
    /// found 504822, fixed: under `.storeTrumps`, a tag whose conflict the
    /// store won (nothing of its own written) and whose link the same save
    /// changed kept its row's version while the change set named it
    /// updated; the change audit refused the commit
    /// (StoreTrumpsLinkVersionTests). With the context under test running
    /// `updateAll`, `deleteAll`, `truncateAll` and `findFirstOrCreate`, 10,000
    /// sequences from seed 800001 found 800799 and 805119, fixed: a record
    /// `findFirstOrCreate` created under `.storeTrumps` was kept without the
    /// values it was written with, so the store won a later conflict on an
    /// edit made only here (StoreTrumpsFindOrCreateTests). None open.
    /// Entry 15 (seed 1799: a chapter inserted under one counted book
    /// in the save that deletes another failed its COMMIT on a foreign key)
    /// is fixed and held by CountedCascadeInsertTests.
    /// With `write {}` merged into a main context under test, 10,000
    /// sequences from seed 900001 found 900930, fixed: a quote a write moved
    /// off a chapter the main context was deleting still refused that
    /// deletion (.deny) from the chapter's stale list
    /// (MergeDeletedOwnerListTests); and two of the model's: 900112 (a
    /// write's child that sets a to-one back pushes nothing) and 901337 (an
    /// object shows its row only with its to-ones).
    /// The widened schema's features found, under `.storeTrumps`, a deletion
    /// the store's newer row takes back, fixed (StoreTrumpsKeptPartnerTests;
    /// entry 8, its `gapped` call inert): seed 185, a kept child tag was
    /// detached from its live parent and reported updated (the test for a
    /// to-one naming a deleted row compared the self-referential table with
    /// itself); seed 139, a kept lead note still named the book whose side of
    /// the one-to-one the save cleared, so the book's later cascade missed it
    /// and COMMIT failed on a foreign key (the kept side is cleared now, as
    /// Docs/Concurrency.md says).
    /// Entry 9 was removed when its fix was merged (its `gapped` call stays,
    /// inert): `rollback()` of a book's deletion whose cascade took its lead
    /// note through the one-to-one left the restored book's `lead` nil in
    /// memory (the cascade cleared it while the book was being deleted,
    /// which records no change), so a note that took the book afterwards
    /// left the old note still naming it, in memory and in the store (seed
    /// 1153). The rollback now gives back exactly what the deletion cleared,
    /// reading nothing (RollbackCascadeOneToOneTests). Entries 10 and 11,
    /// found when the merged writers and the new features first met, are
    /// settled (their `gapped` calls inert): 1109 was the model's, which
    /// asked a save to refuse a pending reference held by an object whose
    /// own row a merged write deleted (the policy forgets that object, and
    /// its reference with it: Concurrency.md's table); 1656 was LiteRecord's:
    /// under `.storeTrumps` a to-one naming a new object, written after the
    /// inserts, overwrote the store's newer value the resolution had kept
    /// (StoreTrumpsDeferredToOneTests). Entry 12 was removed too (its
    /// `gapped` call stays, inert): with `LITERECORD_AUDIT_CHANGES=1` (as
    /// `make test` runs), a save whose pending many-to-many link names a book
    /// another writer deleted was refused by the audit (the save noted the
    /// gone book as updated, though its version bump changed no row) before
    /// the foreign key refused it; the change set now leaves the gone row out
    /// and the save reports `.constraintViolation` either way
    /// (LinkToRecordDeletedElsewhereTests, seed 867).
    /// A hunt of 6,000 sequences from seed 3001 then found four: 3024
    /// (LiteRecord's: `deleteAll` left a new object's to-one naming the
    /// deleted record in memory, DeleteAllUnsavedNullifyTests), 5097
    /// (LiteRecord's: a pending to-one to a forgotten record refused the save
    /// though its holder was deleted elsewhere too,
    /// MergeGoneHolderReferenceTests), 3514 and 4917 (a `.deny` over a list
    /// read before another writer deleted its member, `ReferenceModel.staleDenials`).
    /// Entry 13, found when Book.notes got its minimum, is fixed (its
    /// `gapped` call inert): a note deleted here whose book a merged write
    /// then deleted; the save refused with `.validationFailed` on the gone
    /// book's count (seed 758). A saved owner whose row is gone is no longer
    /// counted: its save meets the conflict and the policy decides
    /// (CountedOwnerGoneElsewhereTests holds the shape outside the model;
    /// only the model's own sequence failed before the fix).
    static let knownGaps: [Int: String] = [:]

    struct Outcome {
        var saves = 0
        var mismatch: ModelMismatch?
        var trace: [String] = []
        var gapHits: [Int: Int] = [:]
        var coverage = MCoverage()
    }

    static func environment(_ name: String) -> String? { ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 } }

    /// The generator of one sequence: its seed spread over the four words
    /// of state with SplitMix64, so that neighbouring seeds start apart.
    static func rng(_ seed: UInt64) -> Xoshiro {
        var state = seed
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        return Xoshiro(seed: (next(), next(), next(), next()))
    }

    /// The two stacks a sequence runs on: without history, and with it (Docs/History.md).
    struct Fixtures {
        let plain: ModelFixture
        let history: ModelFixture
        init() throws {
            plain = try ModelFixture()
            history = try ModelFixture(history: true)
        }
        func fixture(for sequence: MSequence) -> ModelFixture { sequence.history ? history : plain }
    }

    static func run(_ sequence: MSequence, gaps: Set<Int>, on fixtures: Fixtures) async -> Outcome {
        var outcome = Outcome()
        let runner: ModelRunner
        do {
            runner = try ModelRunner(policy: sequence.policy, gaps: gaps, fixture: fixtures.fixture(for: sequence), main: sequence.main)
        } catch {
            outcome.mismatch = ModelMismatch(signature: "setup", detail: "\(error)")
            return outcome
        }
        // What the restore left in `stack.changes`, if anything, is no step's.
        _ = await runner.drainEvents()
        for (step, op) in sequence.ops.enumerated() {
            do {
                try await runner.run(op)
                try runner.checkQueries(after: op)
                // Only these steps commit (or must not): the others are not
                // followed by a suspension each, which under the whole
                // suite's load cost more than the sequences.
                switch op {
                case .save, .write, .child, .grandchild, .reinsertForgotten, .updateAllHere, .deleteAllHere, .findOrCreateHere, .widened, .features:
                    try await runner.checkChannels()
                    try runner.checkSearch()
                default: break
                }
            } catch var mismatch as ModelMismatch {
                mismatch.step = step
                outcome.mismatch = mismatch
                break
            } catch {
                outcome.mismatch = ModelMismatch(
                    signature: "unexpected error in \(String(describing: op).prefix(while: { $0 != "(" && $0 != "[" && $0 != "{" }))", detail: "\(error)", step: step)
                break
            }
        }
        outcome.saves = runner.saves
        outcome.trace = runner.trace
        outcome.gapHits = runner.gapHits
        outcome.coverage = runner.coverage
        return outcome
    }

    /// The shortest sequence found that fails with the same signature:
    /// chunks of steps removed, then single steps, then the steps of child
    /// contexts.
    static func shrink(_ sequence: MSequence, signature: String, gaps: Set<Int>, on fixtures: Fixtures) async -> (MSequence, Outcome) {
        var best = sequence
        var bestOutcome = await run(sequence, gaps: gaps, on: fixtures)
        var budget = 400
        func fails(_ candidate: MSequence) async -> Outcome? {
            budget -= 1
            let outcome = await run(candidate, gaps: gaps, on: fixtures)
            return outcome.mismatch?.signature == signature ? outcome : nil
        }
        var chunk = max(1, best.ops.count / 2)
        while chunk >= 1, budget > 0 {
            var start = 0
            var removed = false
            while start < best.ops.count, budget > 0 {
                var candidate = best
                candidate.ops.removeSubrange(start..<min(best.ops.count, start + chunk))
                if let outcome = await fails(candidate) {
                    best = candidate
                    bestOutcome = outcome
                    removed = true
                } else {
                    start += chunk
                }
            }
            if !removed { chunk /= 2 }
        }
        for index in best.ops.indices.reversed() where budget > 0 {
            guard index < best.ops.count, case .child(let steps) = best.ops[index], steps.count > 1 else { continue }
            for inner in steps.indices.reversed() {
                guard case .child(var current) = best.ops[index], current.count > 1, inner < current.count else { break }
                current.remove(at: inner)
                var candidate = best
                candidate.ops[index] = .child(current)
                if let outcome = await fails(candidate) {
                    best = candidate
                    bestOutcome = outcome
                }
            }
        }
        return (best, bestOutcome)
    }

    @Test func randomSequencesAgreeWithTheReferenceModel() async throws {
        let count = Self.environment("LITERECORD_MODEL_SEQUENCES").flatMap(Int.init) ?? 2_000
        let maxLength = Self.environment("LITERECORD_MODEL_LENGTH").flatMap(Int.init) ?? 40
        let firstSeed = Self.environment("LITERECORD_MODEL_SEED").flatMap(UInt64.init) ?? Self.defaultFirstSeed
        let allFailures = Self.environment("LITERECORD_MODEL_ALL_FAILURES") == "1"
        let tracing = Self.environment("LITERECORD_MODEL_TRACE") != nil
        // LITERECORD_MODEL_GAPS=2,5 keeps only those gaps (to check whether a fix closed the others).
        let chosen = Self.environment("LITERECORD_MODEL_GAPS").map { Set($0.split(separator: ",").compactMap { Int($0) }) }
        let gaps: Set<Int> =
            Self.environment("LITERECORD_MODEL_NO_GAPS") == "1" ? [] : chosen ?? Set(Self.knownGaps.keys)
        let fixtures = try Fixtures()
        var coverage = MCoverage()
        var operations = 0
        var saves = 0
        var sequences = 0
        var gapHits: [Int: Int] = [:]
        var found: [String: UInt64] = [:]
        let started = ContinuousClock.now
        for index in 0..<count {
            let seed = firstSeed &+ UInt64(index)
            var rng = Self.rng(seed)
            let sequence = MGenerator.sequence(&rng, maxLength: maxLength)
            // LITERECORD_MODEL_TRACE=1 names each seed before it runs, for a
            // sequence that crashes rather than fails.
            if tracing { print("[model] seed \(seed)") }
            // The sequences run without suspending; every tenth lets the
            // other tests of the run (two threads) have the thread a while.
            if index % 10 == 9 { await Task.yield() }
            let outcome = await Self.run(sequence, gaps: gaps, on: fixtures)
            sequences += 1
            operations += sequence.ops.count
            saves += outcome.saves
            coverage.formUnion(outcome.coverage)
            for (item, hits) in outcome.gapHits { gapHits[item, default: 0] += hits }
            guard let mismatch = outcome.mismatch else { continue }
            guard found[mismatch.signature] == nil else { continue }
            found[mismatch.signature] = seed
            if tracing { print("[model] seed \(seed) failed (\(mismatch.signature)): shrinking") }
            let (shrunk, shrunkOutcome) = await Self.shrink(sequence, signature: mismatch.signature, gaps: gaps, on: fixtures)
            // The length shapes the sequence: a seed replays only with it.
            let length = maxLength == 40 ? "" : "LITERECORD_MODEL_LENGTH=\(maxLength) "
            let report = """
                [model] FAILED: \(mismatch.signature)
                seed \(seed) (\(length)LITERECORD_MODEL_SEED=\(seed) LITERECORD_MODEL_SEQUENCES=1 to run it alone), \(sequence.ops.count) steps, shrunk to \(shrunk.ops.count):
                \(shrunk)
                what ran (shrunk):
                \(shrunkOutcome.trace.enumerated().map { "  \($0.offset): \($0.element)" }.joined(separator: "\n"))
                difference: \(shrunkOutcome.mismatch?.description ?? mismatch.description)
                """
            print(report)
            Issue.record(Comment(rawValue: report))
            if !allFailures { break }
        }
        let seconds = (ContinuousClock.now - started).components.seconds
        let gapList = gaps.sorted().map { "#\($0) (\(gapHits[$0] ?? 0) steps avoided)" }
        print(
            "[model] \(sequences) sequences, \(operations) operations, \(saves) saves; coverage: \(coverage.line); gaps: \(gapList.isEmpty ? "none" : gapList.joined(separator: ", ")); first seed \(firstSeed), \(seconds) s\(found.isEmpty ? "" : "; \(found.count) distinct failures")"
        )
    }
}
