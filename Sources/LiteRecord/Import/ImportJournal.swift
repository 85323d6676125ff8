/// What an import changed in its context, so that a failed import can take
/// all of it back — and only it: the context's other unsaved changes stay.
///
/// `rollback()` would re-read every changed object from the store and drop
/// the caller's own edits; instead the journal keeps, for each object the
/// import touched, its bookkeeping and the old value of each attribute it
/// overwrote, and the import's new objects are simply taken out again.
final class ImportJournal {
    private struct Snapshot {
        let object: any Entity
        let changes: AttributeMask
        let listings: RecordState.Listings
        let relations: [RelationValue]
        /// Old stored values, in the order they were overwritten.
        var values: [(index: Int, value: SQLValue)] = []
    }

    private let context: RecordContext
    private let insertedMark: Int
    private let pendingErrorsMark: Int
    private let pendingJoins: [JoinKey: PendingJoin]?
    private var snapshots: [ObjectIdentifier: Int] = [:]
    private var list: [Snapshot] = []
    /// The objects this import created.
    private(set) var created = Set<ObjectIdentifier>()

    init(_ context: RecordContext) {
        self.context = context
        insertedMark = context.inserted.count
        pendingErrorsMark = context.pendingErrors.count
        pendingJoins = context.store.model.hasRelationships ? context.pendingJoins : nil
    }

    func noteCreated(_ object: any Entity) {
        created.insert(ObjectIdentifier(object))
    }

    func isCreated(_ object: any Entity) -> Bool {
        created.contains(ObjectIdentifier(object))
    }

    /// Keeps the object's bookkeeping as it is before the import first
    /// changes it (later calls keep the first snapshot).
    func note(_ object: (any Entity)?) {
        guard let object else { return }
        let id = ObjectIdentifier(object)
        guard snapshots[id] == nil, !created.contains(id) else { return }
        let state = object.recordState
        snapshots[id] = list.count
        list.append(Snapshot(object: object, changes: state.changes, listings: state.listings, relations: state.relations))
    }

    /// Keeps the old stored value of an attribute about to be overwritten.
    func noteValue(_ object: any Entity, _ index: Int, _ value: SQLValue) {
        note(object)
        guard let position = snapshots[ObjectIdentifier(object)] else { return }
        list[position].values.append((index, value))
    }

    /// Takes the import back.
    func undo() {
        let inserted = context.inserted
        if inserted.count > insertedMark {
            for object in inserted[insertedMark...] { object.recordState.detach() }
            context.inserted.removeSubrange(insertedMark...)
        }
        if context.pendingErrors.count > pendingErrorsMark { context.pendingErrors.removeSubrange(pendingErrorsMark...) }
        if let pendingJoins { context.pendingJoins = pendingJoins }
        for snapshot in list.reversed() {
            restore(snapshot)
        }
        // A restored object may be listed as changed again later while its
        // stale entry is still on the list.
        if !list.isEmpty { context.lists.noteMayRepeat(.updated) }
    }

    private func restore(_ snapshot: Snapshot) {
        let object = snapshot.object
        let count = type(of: object).attributes.count
        if !snapshot.values.isEmpty, let entity = context.model.entity(for: type(of: object)) {
            var values = [SQLValue](repeating: .null, count: count)
            // The first old value of an attribute is the one before the import.
            for (index, value) in snapshot.values.reversed() where values.indices.contains(index) { values[index] = value }
            let row = Row(values: values, entity: entity)
            var restored = Set<Int>()
            for (index, _) in snapshot.values where restored.insert(index).inserted {
                do {
                    try object.decodeAttribute(at: index, from: row)
                } catch {
                    context.store.logger.warning(
                        "a failed import could not restore an attribute", metadata: ["error": "\(error)"])
                }
            }
        }
        let state = object.recordState
        state.changes = snapshot.changes
        state.listings = snapshot.listings
        state.relations = snapshot.relations
    }
}
