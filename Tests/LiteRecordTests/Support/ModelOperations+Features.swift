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

    var description: String {
        switch self {
        case .updateAllValue(let field, let pick, let elsewhere):
            "\(elsewhere ? "write{" : "")updateAll(Note.\(field), \(pick))\(elsewhere ? "}" : "")"
        case .deleteAll(let kind, let truncate, let elsewhere):
            "\(elsewhere ? "write{" : "")\(truncate ? "truncateAll" : "deleteAll")(\(kind))\(elsewhere ? "}" : "")"
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
