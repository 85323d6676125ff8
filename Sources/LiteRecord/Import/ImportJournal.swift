/// What an import changed in its context, so that a failed import can take
/// all of it back — and only it: the context's other unsaved changes stay.
///
/// `rollback()` would re-read every changed object from the store and drop
/// the caller's own edits; instead the journal keeps, for each existing
/// object the import touches, its bookkeeping and every attribute's stored
/// value before the import first changed it — so what its `willImport` and
/// `didImport` hooks set on it is taken back too — and the import's new
/// objects are simply taken out again.
final class ImportJournal {
    private struct Snapshot {
        let object: any Entity
        let changes: AttributeMask
        let listings: RecordState.Listings
        let relations: [RelationValue]
        /// Every attribute's stored value (`nil` where it cannot be encoded).
        let values: [SQLValue?]
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
        let values = (0..<type(of: object).attributes.count).map { try? object.encodeAttribute(at: $0) }
        list.append(
            Snapshot(object: object, changes: state.changes, listings: state.listings, relations: state.relations, values: values))
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
        if let entity = context.model.entity(for: type(of: object)) {
            let row = Row(values: snapshot.values.map { $0 ?? .null }, entity: entity)
            for (index, old) in snapshot.values.enumerated() {
                // Only what changed: decoding an unchanged value could still
                // replace an object the caller holds (a Codable value, Data).
                guard let old, let now = try? object.encodeAttribute(at: index), !Self.isSame(old, now) else { continue }
                do {
                    try object.decodeAttribute(at: index, from: row)
                } catch {
                    context.store.logger.warning(
                        "a failed import could not restore an attribute", metadata: ["error": "\(error)"])
                }
            }
        }
        object.recordState.changes = snapshot.changes
        object.recordState.listings = snapshot.listings
        object.recordState.relations = snapshot.relations
    }

    private static func isSame(_ old: SQLValue, _ new: SQLValue) -> Bool {
        switch (old, new) {
        case (.text(let a), .text(let b)): a.utf8.elementsEqual(b.utf8)
        case (.real(let a), .real(let b)): a.bitPattern == b.bitPattern
        default: old == new
        }
    }
}
