/// # A deletion and a merged write
///
/// A deletion's rules run over what relates to the record when it is
/// deleted. A `write {}` merged afterwards can relate more to it: move an
/// unchanged object onto it or create a row under it. Left alone, the save
/// would delete the record under rows that still name it and fail at
/// `COMMIT` on the foreign key, every time, until `rollback()`. So the
/// merge applies the pending deletions' rules again, to the rows as the
/// write left them: the deletion means what it would mean had it been made
/// after the write (Docs/Concurrency.md, "A deletion and a merged write").
/// `.nullify` clears the to-one of what the write related (in memory, so
/// the save writes it at the merged version); `.cascade` takes it along;
/// `.deny` is checked at the save as always; `.noAction` leaves the
/// foreign key to fail.
extension RecordContext {
    /// Follows again the `.nullify` and `.cascade` rules of every record
    /// this context is deleting that reach rows the write inserted or
    /// updated: a deleted object's over what it relates to now (its lists
    /// read again where the write changed them), a doomed row's
    /// (``StoreCascade``) over the store. What the rules met at the deletion
    /// is met once: a deleted object is not deleted again, a doomed row is
    /// added once, and a to-one cleared or pointed elsewhere here stays.
    func applyPendingDeletionRules(after changes: ChangeSet) {
        guard !changes.inserted.isEmpty || !changes.updated.isEmpty, !lists.deleted.isEmpty || !storeCascade.isEmpty else { return }
        let touched = Set(changes.inserted.map(\.entityName) + changes.updated.map(\.entityName))
        let owners = lists.deleted.filter { object in
            let state = object.recordState
            return state.belongs(to: self) && state.phase == .deleted && state.rowID != nil
        }
        if !owners.isEmpty { reapplyDeleteRules(of: owners) { relationship in Self.reaches(relationship, touched) } }
        var doomed: [(entity: EntityDescription, ids: [Int64])] = []
        for rows in storeCascade.inDeletionOrder([:]) where rows.entity.relationships.contains(where: { Self.reaches($0, touched) }) {
            doomed.append((rows.entity, rows.rowIDs))
        }
        for (entity, ids) in doomed { followRules(of: entity, ids) }
    }

    /// Whether `relationship`'s `.nullify` or `.cascade` reaches a row the
    /// write changed, of an entity named in `touched`: the destination's,
    /// which holds the foreign key, or the deleted record's own row, which
    /// holds it for a one-to-one.
    private static func reaches(_ relationship: ResolvedRelationship, _ touched: Set<String>) -> Bool {
        guard relationship.deleteRule == .nullify || relationship.deleteRule == .cascade else { return false }
        switch relationship.storage {
        case .inverseForeignKey: return touched.contains(relationship.destinationName)
        case .foreignKey: return touched.contains(relationship.entityName)
        case .joinTable: return false
        }
    }
}
