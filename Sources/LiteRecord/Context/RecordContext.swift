import Foundation

/// A unit of work over a store, like Core Data's `NSManagedObjectContext`: it
/// hands out one object per record (an identity map), tracks what was
/// inserted, changed and deleted, and writes all of it in one transaction on
/// ``save()``.
///
/// A context is not `Sendable`: it and the objects it fetched stay in the task
/// or actor that uses them. The main context is `@MainActor`; background work
/// gets its own context through `RecordStack.write` and `read`.
///
/// ```swift
/// let context = RecordStack.mainContext
/// let ann = Person(name: "Ann", age: 31)
/// context.insert(ann)
/// try context.save()
/// ```
public final class RecordContext {
    let store: Store
    /// The context whose save this context's save feeds, for a child context.
    public let parent: RecordContext?

    struct ObjectKey: Hashable {
        let type: ObjectIdentifier
        let rowID: Int64
    }

    /// Saved objects, by entity and row id: the identity map.
    var registered: [ObjectKey: any Entity] = [:]
    /// Saved objects of entities that do not track their own changes; a save
    /// compares each against its snapshot.
    var untracked: [ObjectIdentifier: any Entity] = [:]
    /// Objects inserted since the last save, in insertion order.
    var inserted: [any Entity] = []
    var insertedIDs: Set<ObjectIdentifier> = []
    /// Saved objects whose tracked attributes changed since the last save.
    var updated: [ObjectIdentifier: any Entity] = [:]
    /// Saved objects to delete at the next save.
    var deleted: [ObjectIdentifier: any Entity] = [:]
    /// For a child context: objects it inserted and pushed to its parent, by
    /// the child object, with the parent's copy. They have no row id until the
    /// root context saves.
    var pushed: [ObjectIdentifier: (child: any Entity, parent: any Entity)] = [:]
    /// Misuse found by calls that cannot throw (`insert`, `delete`), reported by
    /// the next `save()`.
    var pendingErrors: [LiteRecordError] = []
    /// Called after each successful save of this context with what it committed.
    var didSave: ((ChangeSet) -> Void)?

    /// Which connection the context reads through.
    enum ConnectionRole {
        /// A reader from the pool for each read: sees the latest commit.
        case pooled
        /// The writer, inside a `write` transaction: sees its own uncommitted writes.
        case writer
        /// One reader held for a `read` closure: one consistent snapshot.
        case pinned(Connection)
    }

    var role: ConnectionRole

    init(store: Store, parent: RecordContext? = nil, role: ConnectionRole = .pooled) {
        self.store = store
        self.parent = parent
        self.role = role
    }

    /// Runs a read on the connection the context's role calls for.
    func reading<T>(_ operation: @autoclosure () -> String, _ body: (Connection) throws -> T) throws(LiteRecordError) -> T {
        switch role {
        case .pooled:
            return try withErrorContext(operation()) { try store.withReaderPassingErrors(operation(), body) }
        case .writer:
            return try store.withConnection(operation(), body)
        case .pinned(let connection):
            return try withErrorContext(operation()) { try body(connection) }
        }
    }

    /// The model of the store this context works on.
    public var model: Model { store.model }

    // MARK: Inserting and deleting

    /// Adds a new object; it is written at the next ``save()``. Runs the
    /// object's `awakeFromInsert()` once.
    ///
    /// Inserting an object that belongs to another context is reported by the
    /// next `save()` as `.invalidObject`.
    public func insert<T: Entity>(_ object: T) {
        insert(object, awake: true)
    }

    func insert<T: Entity>(_ object: T, awake: Bool) {
        let state = object.recordState
        switch state.phase {
        case .unmanaged:
            object.recordState.context = self
            object.recordState.phase = .inserted
            object.recordState.changes.removeAll()
            inserted.append(object)
            insertedIDs.insert(ObjectIdentifier(object))
            if awake { object.awakeFromInsert() }
        case .deleted where state.context === self:
            // Inserting a deleted object takes the deletion back.
            object.recordState.phase = .managed
            deleted.removeValue(forKey: ObjectIdentifier(object))
        case .inserted, .managed, .deleted:
            if state.context !== self {
                pendingErrors.append(LiteRecordError(
                    .invalidObject,
                    "a \(T.entityName) object that belongs to another context was inserted; use `object.inContext(context)` to get it in this one"))
            }
        }
    }

    /// Marks an object for deletion at the next ``save()``. An object inserted
    /// and not yet saved is simply dropped.
    public func delete<T: Entity>(_ object: T) {
        let state = object.recordState
        guard state.context === self, state.phase != .unmanaged else {
            pendingErrors.append(LiteRecordError(
                .invalidObject,
                state.phase == .unmanaged
                    ? "a \(T.entityName) object that was never inserted or saved was deleted"
                    : "a \(T.entityName) object that belongs to another context was deleted; use `object.inContext(context)` first"))
            return
        }
        let id = ObjectIdentifier(object)
        switch state.phase {
        case .inserted:
            forgetInserted(object)
        case .managed:
            object.recordState.phase = .deleted
            updated.removeValue(forKey: id)
            deleted[id] = object
        case .deleted, .unmanaged:
            break
        }
    }

    private func forgetInserted(_ object: any Entity) {
        let id = ObjectIdentifier(object)
        insertedIDs.remove(id)
        inserted.removeAll { ObjectIdentifier($0) == id }
        object.recordState.phase = .unmanaged
        object.recordState.context = nil
    }

    // MARK: State

    /// Whether the context holds unsaved inserts, changes or deletions.
    public var hasChanges: Bool {
        if !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty || !pendingErrors.isEmpty { return true }
        return untracked.values.contains { isChangedUntracked($0) }
    }

    /// The objects inserted since the last save.
    public var insertedObjects: [any Entity] { inserted }
    /// The saved objects changed since the last save.
    public var updatedObjects: [any Entity] {
        Array(updated.values) + untracked.values.filter { isChangedUntracked($0) }
    }
    /// The objects marked for deletion.
    public var deletedObjects: [any Entity] { Array(deleted.values) }
    /// Every object the context currently knows, saved or inserted.
    public var registeredObjects: [any Entity] { Array(registered.values) + inserted }

    /// Called by an object's generated setter on its first change since it was
    /// fetched or saved.
    func objectDidChange(_ object: some Entity) {
        updated[ObjectIdentifier(object)] = object
    }

    func isChangedUntracked(_ object: any Entity) -> Bool {
        guard object.recordState.phase == .managed else { return false }
        return !changedIndexesUntracked(object).isEmpty
    }

    /// The attributes of an untracked object whose encoded value differs from
    /// the snapshot. A value that cannot be encoded counts as changed, so that
    /// the save reports the encoding error.
    func changedIndexesUntracked(_ object: any Entity) -> [Int] {
        let type = type(of: object)
        guard let snapshot = object.recordState.snapshot else { return Array(type.attributes.indices) }
        return snapshot.indices.filter { index in
            (try? object.encodeAttribute(at: index)) != snapshot[index]
        }
    }

    // MARK: Registering

    /// Registers a freshly read object as saved.
    func register<T: Entity>(_ object: T, rowID: Int64, snapshot: [SQLValue]?) {
        // One write of the whole state instead of five through the protocol.
        var state = RecordState()
        state.context = self
        state.rowID = rowID
        state.phase = .managed
        state.snapshot = snapshot
        object.recordState = state
        registered[ObjectKey(type: ObjectIdentifier(T.self), rowID: rowID)] = object
        if !T.tracksChanges { untracked[ObjectIdentifier(object)] = object }
    }

    /// Forgets a saved object (deleted, or gone from the store).
    func unregister(_ object: any Entity) {
        let id = ObjectIdentifier(object)
        if let rowID = object.recordState.rowID {
            registered.removeValue(forKey: ObjectKey(type: ObjectIdentifier(type(of: object)), rowID: rowID))
        }
        untracked.removeValue(forKey: id)
        updated.removeValue(forKey: id)
        deleted.removeValue(forKey: id)
        // One write of a fresh (unmanaged) state instead of five through the protocol.
        object.recordState = RecordState()
    }

    func registeredObject(_ type: any Entity.Type, rowID: Int64) -> (any Entity)? {
        registered[ObjectKey(type: ObjectIdentifier(type), rowID: rowID)]
    }

    /// Forgets every object and every unsaved change. Objects fetched earlier
    /// are detached: they keep their values but no longer belong to a context.
    public func reset() {
        for object in registered.values { detach(object) }
        for object in inserted { detach(object) }
        registered.removeAll()
        untracked.removeAll()
        inserted.removeAll()
        insertedIDs.removeAll()
        updated.removeAll()
        deleted.removeAll()
        pendingErrors.removeAll()
    }

    private func detach(_ object: any Entity) {
        object.recordState = RecordState()
    }

    deinit {
        // Objects may outlive their context; they must not point at it.
        for object in registered.values { detach(object) }
        for object in inserted { detach(object) }
    }
}

/// What one save committed: the records it inserted, updated and deleted.
public struct ChangeSet: Sendable, Equatable, CustomStringConvertible {
    public var inserted: [RecordID] = []
    public var updated: [RecordID] = []
    public var deleted: [RecordID] = []

    public init(inserted: [RecordID] = [], updated: [RecordID] = [], deleted: [RecordID] = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// The net effect of several change sets committed in one transaction, in
    /// order: a record inserted and deleted again does not appear; an inserted
    /// record that was then updated is only inserted.
    init(merging sets: [ChangeSet]) {
        guard sets.count > 1 else {
            self = sets.first ?? ChangeSet()
            return
        }
        var inserted: [RecordID] = []
        var updated: [RecordID] = []
        var deleted: [RecordID] = []
        var insertedSet = Set<RecordID>()
        for set in sets {
            for id in set.inserted where insertedSet.insert(id).inserted { inserted.append(id) }
            for id in set.updated where !insertedSet.contains(id) && !updated.contains(id) { updated.append(id) }
            for id in set.deleted {
                if insertedSet.remove(id) != nil {
                    inserted.removeAll { $0 == id }
                } else {
                    updated.removeAll { $0 == id }
                    if !deleted.contains(id) { deleted.append(id) }
                }
            }
        }
        self.init(inserted: inserted, updated: updated, deleted: deleted)
    }

    /// The names of the entities the change set touches.
    public var entityNames: Set<String> {
        Set((inserted + updated + deleted).map(\.entityName))
    }

    public var description: String {
        "ChangeSet(inserted: \(inserted.count), updated: \(updated.count), deleted: \(deleted.count))"
    }
}
