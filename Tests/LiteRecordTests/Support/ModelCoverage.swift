import Foundation

// What the model-based test can exercise and observe: the denominators of
// its `[model] … coverage:` line. Each list names what the guides
// (Docs/Concurrency.md, Queries.md, Relationships.md, History.md) ask of
// an oracle, including what the model does
// not reach yet: a run's numerators count what it actually did.

/// The operations a sequence may run.
enum MCoveredOp: String, CaseIterable, Sendable {
    case create, edit, editValues, relate, relateViaList, link, unlink, delete, fetch, read
    case save, rollback, refresh, refreshMerging, reset, reinsertForgotten, policyChange
    case child, grandchild, childSetBasedRefused
    case writeEdit, writeUpdateAll, writeCreate, writeDelete, writeDeleteAll, writeTruncateAll
    case writeFindFirstOrCreate, writeRelink
    case findFirstOrCreate, updateAll, deleteAll, truncateAll
    // `write {}` merged into a main context under test, deleting owners, from
    // a child of its context; prefetching fetches (ModelRunner+Merge.swift).
    case writeDeleteOwner, mainContextMerge, prefetch, writeChild
    /// A child kept after its push, checked after the parent's save (a child's pushed insert keeping its identity).
    case childAfterSave
    /// An edit giving a note the `.unique` code another note holds (unique values met under a conflict).
    case takeCode
}

/// The features of the model's schema (ModelEntities.swift) a run may meet.
enum MFeature: String, CaseIterable, Sendable {
    case cascadeToMany, nullifyToMany, denyToMany, noActionToMany, manyToManyNullify
    case intValue, optionalInt, doubleValue, negativeZero, hugeDouble, decomposedString, dateValue, optionalData
    case uniqueAttribute, countedToMany, countedManyToMany
    // The widened schema's features.
    case manyToManyCascadeOrDeny, oneToOne, selfReferential, searchable, storedCollection
}

/// What the runner compares with the model.
enum MChannel: String, CaseIterable, Sendable {
    case storeRows, storeVersions, heldAttributes, heldRelationships, changeSets, changeEvents, history, queryResults
    /// `search` of the `.searchable` Note.label after every commit.
    case searchResults
}

/// What one run (or one sequence) exercised.
struct MCoverage {
    var ops: Set<MCoveredOp> = []
    var features: Set<MFeature> = []
    var channels: Set<MChannel> = []

    mutating func formUnion(_ other: MCoverage) {
        ops.formUnion(other.ops)
        features.formUnion(other.features)
        channels.formUnion(other.channels)
    }

    /// `a/b operations, c/d model features, e/f channels`, and what is missing.
    var line: String {
        func missing<T: RawRepresentable & CaseIterable & Hashable>(_ set: Set<T>) -> String where T.RawValue == String {
            T.allCases.filter { !set.contains($0) }.map(\.rawValue).joined(separator: " ")
        }
        return "\(ops.count)/\(MCoveredOp.allCases.count) operations, \(features.count)/\(MFeature.allCases.count) model features, "
            + "\(channels.count)/\(MChannel.allCases.count) channels (not reached: \(missing(ops)); \(missing(features)); \(missing(channels)))"
    }

    /// The features a stored row shows.
    mutating func noteValues(_ row: MRow) {
        let values = row.values
        if values.count != 0 { features.insert(.intValue) }
        if values.rank != nil { features.insert(.optionalInt) }
        if values.score != 0 { features.insert(.doubleValue) }
        if values.score == 0, values.score.sign == .minus { features.insert(.negativeZero) }
        if abs(values.score) >= 1e300 { features.insert(.hugeDouble) }
        if values.label.unicodeScalars.contains(where: { $0.properties.isDiacritic || $0.value == 0x30A }) { features.insert(.decomposedString) }
        if values.stamp.timeIntervalSince1970 != 0 { features.insert(.dateValue) }
        if values.blob != nil { features.insert(.optionalData) }
        if values.code != nil { features.insert(.uniqueAttribute) }
    }
}
