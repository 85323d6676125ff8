/// What one save committed: the records it inserted, updated and deleted.
public struct ChangeSet: Sendable, Equatable, CustomStringConvertible {
    /// The records the save inserted.
    public var inserted: [RecordID] = []
    /// The records the save updated.
    public var updated: [RecordID] = []
    /// The records the save deleted.
    public var deleted: [RecordID] = []

    /// A change set of the given records.
    public init(inserted: [RecordID] = [], updated: [RecordID] = [], deleted: [RecordID] = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    /// Whether the save changed nothing.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// The net effect of several change sets committed in one transaction, in
    /// order: a record inserted and deleted again does not appear; an inserted
    /// record that was then updated is only inserted.
    init(merging sets: [ChangeSet]) {
        guard sets.count > 1 else {
            self = sets.first ?? ChangeSet()
            return
        }
        // Membership in sets, order from the lists, the net result filtered once
        // at the end: linear in the number of ids, however many saves there were.
        var inserted: [RecordID] = []
        var updated: [RecordID] = []
        var deleted: [RecordID] = []
        var insertedSet = Set<RecordID>()
        var updatedSet = Set<RecordID>()
        var deletedSet = Set<RecordID>()
        for set in sets {
            for id in set.inserted where insertedSet.insert(id).inserted { inserted.append(id) }
            for id in set.updated where !insertedSet.contains(id) && updatedSet.insert(id).inserted {
                updated.append(id)
            }
            for id in set.deleted {
                if insertedSet.remove(id) == nil {
                    updatedSet.remove(id)
                    if deletedSet.insert(id).inserted { deleted.append(id) }
                }
            }
        }
        func net(_ list: [RecordID], _ remaining: Set<RecordID>) -> [RecordID] {
            // A row id can come back (deleted, then reused by an insert): keep
            // its first place only.
            var seen = Set<RecordID>()
            return list.filter { remaining.contains($0) && seen.insert($0).inserted }
        }
        self.init(inserted: net(inserted, insertedSet), updated: net(updated, updatedSet), deleted: deleted)
    }

    /// The names of the entities the change set touches.
    public var entityNames: Set<String> {
        Set((inserted + updated + deleted).map(\.entityName))
    }

    public var description: String {
        "ChangeSet(inserted: \(inserted.count), updated: \(updated.count), deleted: \(deleted.count))"
    }
}
