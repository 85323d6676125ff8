/// How a context's save resolves a conflict: an object it writes whose row
/// was changed or deleted in the store since the context read it (by another
/// context, another stack on the same file, or another process).
///
/// Each row carries a version that every save's `UPDATE` and `DELETE` checks,
/// so a conflict is found by the statements the save runs anyway.
///
/// ```swift
/// context.mergePolicy = .storeTrumps
/// person.age += 1
/// try context.save()     // a newer stored age wins; other edits are written
/// ```
public enum MergePolicy: Sendable, Hashable, CustomStringConvertible {
    /// The save throws ``LiteRecordError`` of kind `.conflict` naming each
    /// conflicting object and property, rolls back, and the context keeps its
    /// changes; resolve with ``RecordContext/refresh(_:mergeChanges:)``, then
    /// save again. The default, as in Core Data.
    case error
    /// Property by property, this context's changed properties are written
    /// over the store's; the store's changes to other properties are taken
    /// into the object. A deletion here deletes the changed row; a row
    /// deleted in the store stays deleted and the object is forgotten. Core
    /// Data's `NSMergeByPropertyObjectTrumpMergePolicy`.
    case objectTrumps
    /// Property by property, the store's changes win; this context's edits of
    /// properties the store did not change are written. A deletion here of a
    /// row changed in the store is dropped (the object is kept with the
    /// stored values); a row deleted in the store stays deleted and the object
    /// is forgotten. Core Data's `NSMergeByPropertyStoreTrumpMergePolicy`.
    case storeTrumps

    /// The policy as it is written in Swift, such as `.error`.
    public var description: String {
        switch self {
        case .error: ".error"
        case .objectTrumps: ".objectTrumps"
        case .storeTrumps: ".storeTrumps"
        }
    }
}
