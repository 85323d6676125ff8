import Foundation
import Synchronization

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

    /// Saved objects, by entity and row id.
    let identityMap = IdentityMap()
    /// Saved objects of entities that do not track their own changes; a save
    /// compares each against its snapshot.
    var untracked: [ObjectIdentifier: any Entity] = [:]
    /// Objects inserted since the last save, in insertion order. Appended
    /// to once per `insert`: unchecked, as ``lists`` is (no closure passed
    /// to one of its methods reaches the list again).
    // unsafe(context-confined)
    @exclusivity(unchecked) var inserted: [any Entity] = []
    /// Saved objects changed or marked for deletion since the last save, and
    /// the rule tying them to their `listings` flags (see ``ChangeLists``).
    /// Touched once per object a setter first changes or a deletion marks:
    /// unchecked, as ``objectsAreObservable`` is (no ``ChangeLists`` method
    /// calls back into the context's lists).
    // unsafe(context-confined)
    @exclusivity(unchecked) var lists = ChangeLists()
    /// Counts the objects inserted, first listed as changed, marked deleted
    /// or taken back from deletion: ``runWillSave()`` compares it before and
    /// after a round of `willSave` to tell whether the round touched anything.
    /// Unchecked, as ``lists`` is.
    // unsafe(context-confined)
    @exclusivity(unchecked) var changeTouches = 0
    /// For a child context: objects it inserted and pushed to its parent, by
    /// the child object, with the parent's copy. They have no row id until the
    /// root context saves.
    var pushed: [ObjectIdentifier: (child: any Entity, parent: any Entity)] = [:]
    /// The child contexts made from this one and still alive, told when a
    /// save gives the objects they pushed their row ids
    /// (``adoptSavedPushes()``).
    var children: [WeakContext] = []
    /// Misuse found by calls that cannot throw (`insert`, `delete`), reported by
    /// the next `save()`.
    var pendingErrors: [LiteRecordError] = []
    /// Many-to-many links added or removed since the last save, by join table
    /// and pair of objects (in the table's orientation).
    var pendingJoins: [JoinKey: PendingJoin] = [:]
    /// Objects whose to-many with a `minimumCount` or `maximumCount` may
    /// hold another number of objects since the last save: the list was
    /// set, or one of its objects moved away, moved in or was deleted. The
    /// next save (or push) checks their counts, as Core Data validates an
    /// object whose relationship changed, whether or not the list is loaded:
    /// each owner with the relationship indexes of the lists concerned.
    var countedOwners: [ObjectIdentifier: (owner: any Entity, lists: Set<Int>)] = [:]
    /// What the delete rules need of each entity's relationships, by entity
    /// type, worked out at the first deletion of the type.
    var deleteStepsByType: [ObjectIdentifier: [DeleteStep]] = [:]
    /// Cascades a deletion under way leaves to the store: deleted saved
    /// objects whose `.cascade` to-many is not loaded (see
    /// ``PendingCascade``). Empty once `delete(_:)` returns: it turns them
    /// into ``storeCascade``. Read by every `delete(_:)`: unchecked, as
    /// ``lists`` is.
    // unsafe(context-confined)
    @exclusivity(unchecked) var pendingCascades: [PendingCascade] = []
    /// The rows the deletions since the last save take along without an
    /// object here, with the versions read at the deletion; the save deletes
    /// them (see ``PendingCascade`` for the invariants).
    var storeCascade = StoreCascade()
    /// The to-one slots changed on objects while they were deleted, each
    /// with the value it held before the first such change, by object: the
    /// delete rules clear a one-to-one partner's side even when the partner
    /// is deleted too (a `.cascade` through the one-to-one, or both deleted
    /// by hand), and a deleted object records no change, so nothing else
    /// says what to give back. ``rollback()`` restores them — the deletion
    /// undone exactly, nothing read from the store. Emptied by a save, a
    /// rollback and a reset; an object read again drops its entry.
    var slotsChangedWhileDeleted: [ObjectIdentifier: (object: any Entity, slots: [Int: RelationValue])] = [:]
    /// The row version a merge delivered to an object deleted here, by
    /// object. The deletion keeps the version it is based on, so that its
    /// save meets the write as a conflict, but the object shows the write's
    /// values: ``rollback()`` that takes the deletion back gives it the
    /// merged version too, or the next edit of what it shows would meet a
    /// conflict with the values it already holds (model seed 3983). Emptied
    /// by a save, a rollback and a reset.
    var versionsMergedWhileDeleted: [ObjectIdentifier: (object: any Entity, version: Int64)] = [:]
    /// Called after each successful save of this context with what it committed.
    var didSave: ((ChangeSet) -> Void)?
    /// For a `write` context: the columns its saves updated and how many
    /// versions each row advanced, by record, so that the merge into the main
    /// context can tell an edit there of other properties (no conflict) from
    /// one of the same property. `nil` for other contexts, which pay nothing.
    var writtenColumns: [RecordID: WrittenColumns]?
    /// Overrides ``RecordStack/includesValuesInDescriptions`` (and the
    /// process-wide switch) for this context's conflict messages; tests set
    /// it rather than the global.
    var showsConflictValues: Bool?

    /// Who the context's saves are by, recorded with each transaction of the
    /// store's history (Core Data's `transactionAuthor`): an app names its
    /// importer, its widget, its sync engine, and skips its own changes when
    /// it reads the history back (``HistoryFilter/notAuthor(_:)``).
    ///
    /// ```swift
    /// context.transactionAuthor = "importer"
    /// try context.save()
    /// ```
    public var transactionAuthor: String?

    /// The context's name, recorded with each transaction of the store's
    /// history as ``HistoryTransaction/contextName`` (Core Data's `name`).
    public var name: String?

    /// What a save does when an object it writes was changed (or deleted) in
    /// the store since this context read it: `.error` (the default) throws
    /// `.conflict`; `.objectTrumps` and `.storeTrumps` resolve property by
    /// property, like Core Data's merge policies.
    ///
    /// ```swift
    /// context.mergePolicy = .objectTrumps   // this context's edits win
    /// ```
    ///
    /// A context keeps the stored values it read only under `.storeTrumps`
    /// (to tell which properties the store changed since), so set that
    /// policy before fetching; see `Docs/Concurrency.md`.
    public var mergePolicy: MergePolicy = .error {
        didSet {
            if mergePolicy == .storeTrumps, oldValue != .storeTrumps { keepStoredValues() }
            if mergePolicy != .storeTrumps {
                identityMap.forEachObject { $0.recordState.storedValues = nil }
            }
        }
    }

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

    /// Whether this context's objects are `Observable` in practice: reading
    /// one of their stored properties or relationships inside
    /// `withObservationTracking` (or a SwiftUI view's body) registers it, and
    /// a change — by a setter, a merge, a rollback or a refresh — notifies.
    ///
    /// `true` for ``RecordStack/mainContext-property``, for contexts made on the main
    /// actor with ``RecordStack/newContext(isolation:)``, and for children of an
    /// observable context; `false` for the contexts of `write` and `read` and
    /// for contexts made elsewhere, whose objects stay in a background task
    /// that no view displays: there a property read costs one branch instead
    /// of a call into the Observation framework. Set it to `true` before
    /// fetching to observe the objects of any context.
    ///
    /// ```swift
    /// let context = stack.newContext()
    /// context.isObservable = true
    /// ```
    public var isObservable: Bool {
        get { objectsAreObservable }
        set {
            guard newValue != objectsAreObservable else { return }
            objectsAreObservable = newValue
            for object in registeredObjects { object.recordState.isObservable = newValue }
        }
    }

    /// ``isObservable``'s storage, read once per object an insert or a fetch
    /// registers: unchecked, since only the context's own isolation uses it,
    /// and the runtime's exclusivity bookkeeping would cost more than the read.
    // unsafe(context-confined)
    @exclusivity(unchecked) var objectsAreObservable: Bool
    #if DEBUG
    /// Debug builds: how many objects' unretained context reference names
    /// this context (`RecordState.attach`/`detach`), none once it has
    /// detached them all — the checked copy of the rule
    /// `detached-before-free` (Docs/Internals/UnsafeSwift.md).
    let objectsNamingIt = Atomic<Int>(0)
    #endif

    init(store: Store, parent: RecordContext? = nil, role: ConnectionRole = .pooled, isObservable: Bool? = nil) {
        self.store = store
        self.parent = parent
        self.role = role
        self.objectsAreObservable = isObservable ?? parent?.isObservable ?? false
        if let parent {
            parent.children.removeAll { $0.context == nil }
            parent.children.append(WeakContext(self))
        }
    }

    /// Runs a read on the connection the context's role calls for.
    func reading<T>(_ operation: @autoclosure () -> String, _ body: (Connection) throws -> T) throws(LiteRecordError) -> T {
        // A child sees its ancestors' deletions, those left to the store too.
        if parent != nil { loadAncestorsStoreCascades() }
        switch role {
        case .pooled:
            return try store.attributingErrors(operation()) { try store.withReaderPassingCallerErrors(operation(), body) }
        case .writer:
            return try store.withConnection(operation(), body)
        case .pinned(let connection):
            // Taken for use again: a listener may have started since the
            // closure that pinned it began.
            connection.armTraceIfListened()
            return try store.attributingErrors(operation()) { try body(connection) }
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
        // The common case, a new object, in one access to its state rather
        // than one per field read or set.
        let isNew = object.withState { state in
            guard state.phase == .unmanaged, !state.isForgotten else { return false }
            state.attach(to: self)
            state.phase = .inserted
            state.clearChanges()
            return true
        }
        switch isNew ? .unmanaged : object.statePhase {
        case .unmanaged where !isNew:
            pendingErrors.append(LiteRecordError(.invalidObject, Self.forgottenMessage(T.entityName, "inserted")))
        case .unmanaged:
            inserted.append(object)
            changeTouches &+= 1
            if store.model.hasRelationships, !T.relationships.isEmpty {
                object.settleRelationships()
                if !object.recordState.relations.isEmpty { adoptRelated(object) }
            }
            if awake { object.awakeFromInsert() }
        case .deleted where object.stateBelongs(to: self):
            // Inserting a deleted object takes the deletion back; the next save
            // skips it on the list of deleted objects.
            object.recordState.phase = .managed
            changeTouches &+= 1
        case .inserted, .managed, .deleted:
            if !object.stateBelongs(to: self) {
                pendingErrors.append(
                    LiteRecordError(
                        .invalidObject,
                        "a \(T.entityName) object that belongs to another context was inserted; use `object.inContext(context)` to get it in this one"))
            }
        }
    }

    /// Marks an object for deletion at the next ``save()``. An object inserted
    /// and not yet saved is simply dropped.
    ///
    /// Delete rules apply at once, as if every related object were loaded:
    /// a `.cascade` to-many that is not loaded is not read into the context,
    /// only the ids and versions of the rows it relates (as the form taking a
    /// sequence says).
    public func delete<T: Entity>(_ object: T) {
        deleteOne(object)
        if !pendingCascades.isEmpty { expandPendingCascades() }
    }

    /// `delete(_:)` without following the cascades it leaves to the store.
    private func deleteOne<T: Entity>(_ object: T) {
        guard object.stateBelongs(to: self), object.statePhase != .unmanaged else {
            pendingErrors.append(
                LiteRecordError(
                    .invalidObject,
                    object.statePhase == .unmanaged
                        ? "a \(T.entityName) object that was never inserted or saved was deleted"
                        : "a \(T.entityName) object that belongs to another context was deleted; use `object.inContext(context)` first"))
            return
        }
        guard !store.model.hasRelationships else { return deleteApplyingRules(object) }
        // Inline rather than through markDeleted(_:), whose `any Entity` costs
        // a box per object: a model without relationships deletes as before.
        switch object.statePhase {
        case .inserted:
            forgetInserted(object)
        case .managed:
            object.recordState.phase = .deleted
            changeTouches &+= 1
            lists.listDeleted(object)
        case .deleted, .unmanaged:
            break
        }
    }

    /// Marks every object of `objects` for deletion at the next ``save()``,
    /// as `delete(_:)` does for one object; inserted objects not yet saved
    /// are dropped.
    ///
    /// Delete rules apply as for one object. A `.cascade` to-many that is not
    /// loaded is not read into the context: the deletion reads the ids and
    /// versions of the rows it relates, at every level, with one `SELECT`
    /// per relationship for all the deleted objects, and the save deletes
    /// them with one `DELETE` per entity, checking their versions as it
    /// checks a loaded object's. The result is the one loading them gives:
    /// the change set names every row, a row changed elsewhere since the
    /// deletion is a conflict, and ``deletedObjects`` or a fetch reads the
    /// doomed objects first when asked for them.
    ///
    /// ```swift
    /// let gone = try context.fetch(FetchRequest<Author>(predicate: #Predicate { $0.born < 1900 }))
    /// context.delete(gone)
    /// try context.save()
    /// ```
    ///
    /// Misuse (an object never inserted, or one of another context) is
    /// reported by the next ``save()``, which throws `.invalidObject`.
    public func delete<S: Sequence>(_ objects: S) where S.Element: Entity {
        for object in objects { deleteOne(object) }
        if !pendingCascades.isEmpty { expandPendingCascades() }
    }

    /// Marks a saved object deleted, or drops an inserted one.
    func markDeleted(_ object: any Entity) {
        switch object.statePhase {
        case .inserted:
            forgetInserted(object)
        case .managed:
            markManagedDeleted(object)
        case .deleted, .unmanaged:
            break
        }
    }

    /// A pending update of the object is skipped by the save from now on.
    func markManagedDeleted(_ object: any Entity) {
        object.recordState.phase = .deleted
        changeTouches &+= 1
        lists.listDeleted(object)
    }

    func forgetInserted(_ object: any Entity) {
        let id = ObjectIdentifier(object)
        // Searched from the end: an object deleted right after its insertion
        // is usually the last one inserted.
        if let position = inserted.lastIndex(where: { ObjectIdentifier($0) == id }) {
            inserted.remove(at: position)
        }
        object.recordState.detach()
    }

    // MARK: State

    /// Whether the context holds unsaved inserts, changes or deletions.
    public var hasChanges: Bool {
        if !inserted.isEmpty || !pendingErrors.isEmpty || !pendingJoins.isEmpty || !storeCascade.isEmpty { return true }
        if lists.updated.contains(where: isPendingUpdate) || lists.deleted.contains(where: isPendingDeletion) { return true }
        return untracked.values.contains { isChangedUntracked($0) }
    }

    /// The objects inserted since the last save.
    public var insertedObjects: [any Entity] { inserted }
    /// The saved objects changed since the last save.
    ///
    /// ```swift
    /// person.age += 1
    /// context.updatedObjects.count    // 1
    /// ```
    public var updatedObjects: [any Entity] {
        lists.pending(.updated, in: self, updateListing) + untracked.values.filter { isChangedUntracked($0) }
    }
    /// The objects marked for deletion.
    ///
    /// ```swift
    /// context.delete(person)
    /// context.deletedObjects.count    // 1
    /// ```
    public var deletedObjects: [any Entity] {
        if !storeCascade.pending.isEmpty { loadStoreCascade() }
        return lists.pending(.deleted, in: self, deletionListing)
    }
    /// The objects marked for deletion, as ``deletedObjects`` lists them but
    /// without loading the rows a pending store-side cascade dooms.
    var pendingDeletions: [any Entity] {
        lists.pending(.deleted, in: self, deletionListing)
    }
    /// Every object the context currently knows, saved or inserted.
    public var registeredObjects: [any Entity] { identityMap.objects + inserted }

    /// Called by an object's generated setter on its first change since it was
    /// fetched or saved.
    @usableFromInline
    func objectDidChange(_ object: any Entity) {
        changeTouches &+= 1
        lists.listUpdated(object)
    }

    private func isPendingUpdate(_ object: any Entity) -> Bool {
        let state = object.recordState
        return state.listings.contains(.updated) && updateListing(state) == .pending
    }

    private func isPendingDeletion(_ object: any Entity) -> Bool {
        let state = object.recordState
        return state.listings.contains(.deleted) && deletionListing(state) == .pending
    }

    /// Where an entry of the list of changed objects stands: deleted objects
    /// with changes stay listed, since taking the deletion back makes them
    /// updates again.
    private func updateListing(_ state: RecordState) -> ChangeLists.Listing {
        guard !state.changes.isEmpty, state.belongs(to: self) else { return .drop }
        switch state.phase {
        case .managed: return .pending
        case .deleted: return .keep
        case .inserted, .unmanaged: return .drop
        }
    }

    /// Where an entry of the list of deleted objects stands.
    private func deletionListing(_ state: RecordState) -> ChangeLists.Listing {
        state.phase == .deleted && state.belongs(to: self) ? .pending : .drop
    }

    /// The saved objects with tracked changes to write, each once, in the
    /// order of their first change. Compacts the list (``updateListing(_:)``).
    @discardableResult
    func collectUpdated() -> [any Entity] {
        lists.collect(.updated, in: self, updateListing)
    }

    /// The saved objects to delete, each once. Compacts the list to exactly these.
    @discardableResult
    func collectDeleted() -> [any Entity] {
        lists.collect(.deleted, in: self, deletionListing)
    }

    /// Empties the lists of changed and deleted objects.
    func clearChangeLists() {
        lists.clear(in: self)
    }

    func isChangedUntracked(_ object: any Entity) -> Bool {
        guard object.statePhase == .managed else { return false }
        return !changedIndexesUntracked(object).isEmpty
    }

    /// The attributes of an untracked object whose encoded value differs from
    /// the snapshot. A value that cannot be encoded counts as changed, so that
    /// the save reports the encoding error.
    func changedIndexesUntracked(_ object: any Entity) -> [Int] {
        let type = type(of: object)
        guard let snapshot = object.withState({ $0.snapshot }) else { return Array(type.attributes.indices) }
        return snapshot.indices.filter { index in
            (try? object.encodeAttribute(at: index)) != snapshot[index]
        }
    }

    // MARK: Registering

    /// Registers a freshly read object as saved.
    /// `version` is the row's (``RecordState/version``); the initial one for a
    /// row just inserted.
    @inline(__always)
    func register<T: Entity>(_ object: T, rowID: Int64, version: Int64 = Model.initialVersion, snapshot: [SQLValue]?) {
        register(object, rowID: rowID, version: version, snapshot: snapshot, in: identityMap.table(for: T.self))
    }

    /// Registers a freshly read object in `table`, the identity map's table of
    /// its entity (looked up once by a fetch, not once per row).
    @inline(__always)
    func register<T: Entity>(_ object: T, rowID: Int64, version: Int64, snapshot: [SQLValue]?, in table: ObjectTable) {
        object.withState { state in
            state.manage(in: self, rowID: rowID, version: version)
            state.snapshot = snapshot
        }
        // A record id is never handed out twice, so nothing is replaced; if
        // something were, it must not stay attached to this context unlisted.
        if let replaced = table.insert(object, rowID: rowID) { replaced.recordState.detach(forgotten: true) }
        if !T.tracksChanges { untracked[ObjectIdentifier(object)] = object }
    }

    /// Forgets a saved object (deleted, or gone from the store). It stays on
    /// the lists of changed or deleted objects until the next save drops it.
    /// `forgotten` marks it ``RecordState/isForgotten``: its record went
    /// without its own deletion being saved here.
    func unregister(_ object: any Entity, forgotten: Bool = false) {
        if let rowID = object.stateRowID {
            identityMap.table(for: type(of: object)).remove(rowID)
        }
        lists.noteLeft(object.withState { $0.listings })
        if !type(of: object).tracksChanges { untracked.removeValue(forKey: ObjectIdentifier(object)) }
        object.recordState.detach(forgotten: forgotten)
    }

    /// Why a forgotten object (``RecordState/isForgotten``) cannot be
    /// `action` ("saved", "inserted", "deleted").
    static func forgottenMessage(_ entityName: String, _ action: String) -> String {
        "this \(entityName) stood for a record its context forgot (deleted elsewhere, or the context was reset or went away, as at cleanUp), so it cannot be \(action) as a new one; fetch the record again, or make a new object"
    }

    func registeredObject(_ type: any Entity.Type, rowID: Int64) -> (any Entity)? {
        identityMap.object(type, rowID: rowID)
    }

    /// Forgets every object and every unsaved change. Objects fetched earlier
    /// are detached: they keep their values but no longer belong to a context.
    public func reset() {
        detachAll()
        identityMap.removeAll()
        untracked.removeAll()
        inserted.removeAll()
        // Every object was detached above, its flags with it.
        lists.removeAllWritten()
        pushed.removeAll()
        pendingErrors.removeAll()
        pendingJoins.removeAll()
        countedOwners.removeAll()
        pendingCascades.removeAll()
        storeCascade = StoreCascade()
        slotsChangedWhileDeleted.removeAll()
        versionsMergedWhileDeleted.removeAll()
    }

    private func detachAll() {
        identityMap.forEachObject { $0.recordState.detach(forgotten: true) }
        for object in inserted { object.recordState.detach() }
        for (child, _) in pushed.values { child.recordState.detach() }
    }

    deinit {
        // Objects may outlive their context; they must not point at it.
        detachAll()
        #if DEBUG
        // unsafe(detached-before-free), checked: no object's unretained
        // reference names this context any more.
        assert(
            objectsNamingIt.load(ordering: .relaxed) == 0,
            "\(objectsNamingIt.load(ordering: .relaxed)) objects still name a context that is going away")
        #endif
    }
}
