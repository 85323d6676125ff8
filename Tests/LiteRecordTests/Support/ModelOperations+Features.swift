import Foundation
import PropertyBased

// Issue #58's widened set-based steps: `updateAll` of numeric, optional,
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
    /// (issue #58 item 3). A step weighted on purpose: random edits meet
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
    /// Issue #58's steps drawn after `widen`'s, so that a seed's other steps
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
}
