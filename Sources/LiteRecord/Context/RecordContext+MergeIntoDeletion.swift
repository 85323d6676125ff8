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
    /// this context is deleting, over the records the write inserted or
    /// updated that they relate to now. Doomed rows (``StoreCascade``) whose
    /// rules reach an entity the write changed are loaded first, as deleted
    /// objects, so that the rules run over objects as for any deletion.
    /// What the rules met at the deletion is met once: a deleted object is
    /// not deleted again, and a to-one cleared or pointed elsewhere here
    /// stays. A record the write did not change is left as it is.
    func applyPendingDeletionRules(after changes: ChangeSet) {
        guard !changes.inserted.isEmpty || !changes.updated.isEmpty, !lists.deleted.isEmpty || !storeCascade.isEmpty else { return }
        let written = Set(changes.inserted + changes.updated)
        let touched = Set(written.map(\.entityName))
        for rows in storeCascade.inDeletionOrder([:]) where rows.entity.relationships.contains(where: { Self.reaches($0, touched) }) {
            loadStoreCascade(of: rows.entity.type)
        }
        let owners = lists.deleted.filter { object in
            object.withState { $0.belongs(to: self) && $0.phase == .deleted && $0.rowID != nil }
        }
        guard !owners.isEmpty else { return }
        reapplyDeleteRules(of: owners, where: { Self.reaches($0, touched) }, written: written)
    }

    /// Whether `relationship`'s `.nullify` or `.cascade` reaches a row the
    /// write changed, of an entity named in `touched`, whose foreign key
    /// names the deleted record: a to-many's destination's, or a
    /// one-to-one's other side (a relink writes both sides). A to-one held
    /// by the deleted record itself reaches nothing the write could add.
    private static func reaches(_ relationship: ResolvedRelationship, _ touched: Set<String>) -> Bool {
        guard relationship.deleteRule == .nullify || relationship.deleteRule == .cascade, touched.contains(relationship.destinationName) else { return false }
        switch relationship.storage {
        case .inverseForeignKey: return true
        case .foreignKey: return relationship.isOneToOne
        case .joinTable: return false
        }
    }
}
