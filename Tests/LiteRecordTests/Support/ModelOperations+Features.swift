import Foundation
import LiteRecord
import PropertyBased

// The widened set-based steps: `updateAll` of numeric, optional,
// `.unique` and searchable values, and `deleteAll`/`truncateAll` of owners
// with delete rules — in the context under test or by another writer.

enum MFeatureOp: Sendable, CustomStringConvertible {
    /// `MTNote.updateAll(matching:set:to:)` of one value of `field` (count,
    /// rank, code, summary) in every note, or (`pick % 3 == 0`) in the notes
    /// with one stored note's text.
    case updateAllValue(MField, pick: UInt32, elsewhere: Bool)
    /// `deleteAll(matching:)` of every row of a kind, or `truncateAll()`,
    /// with the delete rules applied in the store (Docs/Relationships.md).
    case deleteAll(MKind, truncate: Bool, elsewhere: Bool)
    /// A held note takes the `.unique` code another note holds in the
    /// store — preferably one whose deletion or code change is pending
    /// here — and (`conflict`) another writer first edits that note's text:
    /// a code taken over in the same save as a conflict on its holder
    /// (unique values met under a conflict). A step weighted on purpose: random edits meet
    /// that combination too rarely.
    case takeCode(UInt32, conflict: Bool)

    var description: String {
        switch self {
        case .updateAllValue(let field, let pick, let elsewhere):
            "\(elsewhere ? "write{" : "")updateAll(Note.\(field), \(pick))\(elsewhere ? "}" : "")"
        case .deleteAll(let kind, let truncate, let elsewhere):
            "\(elsewhere ? "write{" : "")\(truncate ? "truncateAll" : "deleteAll")(\(kind))\(elsewhere ? "}" : "")"
        case .takeCode(let pick, let conflict): "takeCode(\(pick)\(conflict ? ", its holder edited elsewhere" : ""))"
        }
    }

    /// The fields `updateAll` sets besides text.
    static let updatedFields: [MField] = [.count, .rank, .code, .summary]

    static func random(_ rng: inout Xoshiro) -> MFeatureOp {
        let elsewhere = Bool.random(using: &rng)
        if Bool.random(using: &rng) {
            let field = updatedFields.randomElement(using: &rng) ?? .count
            return .updateAllValue(field, pick: MGenerator.pick(&rng), elsewhere: elsewhere)
        }
        return .deleteAll(MKind.allCases.randomElement(using: &rng) ?? .book, truncate: Bool.random(using: &rng), elsewhere: elsewhere)
    }
}

extension MGenerator {
    /// The widened steps drawn after `widen`'s, so that a seed's other steps
    /// stay what they were: `takeCode` after one note deletion or edit in
    /// three, and now and then anywhere.
    static func widenCodes(_ sequence: inout MSequence, _ rng: inout Xoshiro) {
        var ops: [MOp] = []
        for op in sequence.ops {
            ops.append(op)
            let roll = Int.random(in: 0..<60, using: &rng)
            let afterNote: Bool
            switch op {
            case .delete(.note, _), .delete(.book, _), .edit(.note, _): afterNote = true
            default: afterNote = false
            }
            if afterNote ? roll < 20 : roll == 0 {
                ops.append(.features(.takeCode(pick(&rng), conflict: Bool.random(using: &rng))))
            }
        }
        sequence.ops = ops
    }

    /// `deleteAll` and unsaved related objects, drawn after every other step (so that a seed's
    /// steps stay what they were, the new ones only appended): in one
    /// sequence of six, an unsaved object related to a row `deleteAll`
    /// removes, then a save. Random steps almost never meet that: the
    /// seeded quote (`.deny` on Chapter.quotes) makes every `deleteAll` of
    /// books or chapters refuse, so the quotes go first; the owners are
    /// fetched so that the new chapter or paragraph can name one; the
    /// deletion's `.cascade` must take it (ModelRunner.deleteAllRows: what
    /// deleting the loaded owner does, Docs/Relationships.md).
    static func widenDeleteAll(_ sequence: inout MSequence, _ rng: inout Xoshiro) {
        guard Int.random(in: 0..<6, using: &rng) == 0 else { return }
        let owner: MKind = Bool.random(using: &rng) ? .book : .chapter
        sequence.ops += [
            .features(.deleteAll(.quote, truncate: Bool.random(using: &rng), elsewhere: false)),
            .fetch(owner),
            .create(owner == .book ? .chapter : .paragraph, target: pick(&rng)),
            .features(.deleteAll(owner, truncate: Bool.random(using: &rng), elsewhere: false)),
            .save,
        ]
    }

    /// `LITERECORD_MODEL_POLICY=error|objectTrumps|storeTrumps`: every
    /// sequence runs under that merge policy, its mid-sequence changes
    /// included — for a run that looks for one policy's bug (a proof with
    /// scripts/model-proof.sh of unique values met under a conflict, under
    /// `.objectTrumps`). The
    /// policies are drawn all the same, so a seed's steps stay what they
    /// are; without the variable (the default run) each sequence keeps the
    /// policy drawn.
    static func forcePolicy(_ sequence: inout MSequence) {
        let policies: [String: MergePolicy] = ["error": .error, "objectTrumps": .objectTrumps, "storeTrumps": .storeTrumps]
        guard let name = ProcessInfo.processInfo.environment["LITERECORD_MODEL_POLICY"], !name.isEmpty else { return }
        guard let forced = policies[name] else { return }
        sequence.policy = forced
        sequence.ops = sequence.ops.map { op in
            if case .policy = op { return .policy(forced) }
            return op
        }
    }
}
