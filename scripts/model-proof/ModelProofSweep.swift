import Foundation
import Testing
@testable import LiteRecord

// Copied into the test target by `scripts/model-proof.sh --sweep K` only:
// not a test of the repository. ModelBasedTests reports one failure per
// signature ("save outcome: success, got constraintViolation"), but against
// an old commit several bugs may share one (a foreign key failing at COMMIT
// has more than one cause, and a unique index is another), and the first
// found hides the others. This runs the same sequences (ModelBasedTests'
// generator, runner and shrinker, no known gaps) and shrinks up to K
// failures of each signature and kind of detail (its text without numbers:
// "FOREIGN KEY constraint failed" is not "UNIQUE constraint failed"),
// reporting each whose shrunk steps use a set of operations not reported
// before, in the test's own format. The environment is the test's:
// LITERECORD_MODEL_SEQUENCES, _SEED, _LENGTH; and
// LITERECORD_MODEL_PROOF_PER_SIGNATURE (K, default 8). A sequence that traps
// in the old commit (an `assert`, a crash) ends the whole run: with
// LITERECORD_MODEL_TRACE=1 each seed is printed before it runs (and again
// before it is shrunk, whose candidates may trap where the whole did not),
// and LITERECORD_MODEL_PROOF_SKIP=<seed>,<seed> leaves such seeds out.
@Suite struct ModelProofSweep {
    static func environment(_ name: String) -> String? { ModelBasedTests.environment(name) }

    /// The operations of a sequence by name (a child's and grandchild's
    /// steps inside), and its merge policy: what tells two mechanisms apart.
    static func shape(_ sequence: MSequence) -> String {
        func name(_ op: MOp) -> String {
            let text = String(describing: op)
            switch op {
            case .child(let steps), .grandchild(let steps):
                let head = text.prefix { $0 != "[" }
                return "\(head)[\(Set(steps.map(name)).sorted().joined(separator: ","))]"
            default:
                return String(text.prefix { $0 != "(" && $0 != "[" && $0 != "{" && $0 != " " })
                    + (text.hasPrefix("write{") ? "{" + String(text.dropFirst(6).prefix { $0 != "(" && $0 != " " }) + "}" : "")
            }
        }
        return "\(sequence.policy): " + Set(sequence.ops.map(name)).sorted().joined(separator: " ")
    }

    @Test func sweep() async throws {
        let count = Self.environment("LITERECORD_MODEL_SEQUENCES").flatMap(Int.init) ?? 2_000
        let maxLength = Self.environment("LITERECORD_MODEL_LENGTH").flatMap(Int.init) ?? 40
        let firstSeed = Self.environment("LITERECORD_MODEL_SEED").flatMap(UInt64.init) ?? 1
        let perSignature = Self.environment("LITERECORD_MODEL_PROOF_PER_SIGNATURE").flatMap(Int.init) ?? 8
        let fixtures = try ModelBasedTests.Fixtures()
        var shrunkBySignature: [String: Int] = [:]
        var failing = 0
        var reported: Set<String> = []
        let tracing = Self.environment("LITERECORD_MODEL_TRACE") != nil
        let skipped = Set((Self.environment("LITERECORD_MODEL_PROOF_SKIP") ?? "").split(separator: ",").compactMap { UInt64($0) })
        for index in 0..<count {
            let seed = firstSeed &+ UInt64(index)
            if skipped.contains(seed) {
                print("[model] seed \(seed) skipped (LITERECORD_MODEL_PROOF_SKIP)")
                continue
            }
            var rng = ModelBasedTests.rng(seed)
            let sequence = MGenerator.sequence(&rng, maxLength: maxLength)
            if tracing { print("[model] seed \(seed)") }
            let outcome = await ModelBasedTests.run(sequence, gaps: [], on: fixtures)
            guard let mismatch = outcome.mismatch else { continue }
            failing += 1
            let detail = String(mismatch.detail.filter { !$0.isNumber }.prefix(240))
            let budget = mismatch.signature + " | " + detail
            guard shrunkBySignature[budget, default: 0] < perSignature else { continue }
            shrunkBySignature[budget, default: 0] += 1
            if tracing { print("[model] seed \(seed) failed (\(mismatch.signature)): shrinking") }
            let (shrunk, shrunkOutcome) = await ModelBasedTests.shrink(sequence, signature: mismatch.signature, gaps: [], on: fixtures)
            guard reported.insert(mismatch.signature + " | " + Self.shape(shrunk)).inserted else { continue }
            print("""
                [model] FAILED: \(mismatch.signature)
                seed \(seed) (LITERECORD_MODEL_SEED=\(seed) LITERECORD_MODEL_SEQUENCES=1 to run it alone), \(sequence.ops.count) steps, shrunk to \(shrunk.ops.count):
                \(shrunk)
                what ran (shrunk):
                \(shrunkOutcome.trace.enumerated().map { "  \($0.offset): \($0.element)" }.joined(separator: "\n"))
                difference: \(shrunkOutcome.mismatch?.description ?? mismatch.description)
                """)
        }
        print("[model] \(count) sequences swept from seed \(firstSeed): \(failing) failed; \(reported.count) distinct signatures and shapes reported (at most \(perSignature) shrunk per signature and kind of detail)")
    }
}
