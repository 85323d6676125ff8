/// The bookkeeping a context keeps for each entity object: which context it
/// belongs to, its row id, its life-cycle phase and which attributes changed.
///
/// An entity stores one of these and otherwise leaves it alone; the `@Entity`
/// macro declares it for you.
///
/// ```swift
/// final class Tag: Entity {
///     var recordState = RecordState()
///     …
/// }
/// ```
///
/// It is a value stored in the object itself, so that fetching an object
/// costs one allocation, not two. The context changes it in place, through
/// the entity's `recordState` setter (its `_modify` accessor), never a copy:
/// code holding a copy (`let state = object.recordState`) only reads it.
public struct RecordState {
    enum Phase: UInt8 {
        /// Not known to any context (new, or deleted and saved).
        case unmanaged
        /// Inserted into a context, not yet saved.
        case inserted
        /// Saved, registered in a context.
        case managed
        /// Saved, marked for deletion at the next save.
        case deleted
    }

    // Every object carries one of these, so the layout is kept within 48
    // bytes (`ObjectFootprintTests` checks it): five words, then the small
    // fields packed into the sixth. What most objects never need lives in
    // `extras`, made on first use, which shares its word with the
    // observation group (``OutOfLine``). Only the object's own context touches it,
    // on the context's thread or actor; the entity's stored property, not
    // these fields, is where the exclusivity check is switched off.

    /// The context, unretained: a context detaches every object it knows
    /// (``detach()``) when it is reset or goes away, so while this is set it
    /// names a live context. An unretained reference costs neither the weak
    /// reference's side-table update per object nor a word for the context's
    /// identity beside it.
    // unsafe(detached-before-free)
    private var contextReference: Unmanaged<RecordContext>?
    /// The row's version (``Model/versionColumn``) that the object's values
    /// and unsaved changes are based on: read with the row, one more after
    /// each save that updated it. A save's `UPDATE`/`DELETE` matches it.
    var version: Int64 = 0
    /// The object's relationships, by relationship index; empty until the
    /// first use, and always for entities without relationships.
    var relations: [RelationValue] = []
    /// ``observationGroup`` and ``extras`` in one word: see ``OutOfLine``.
    @usableFromInline var outOfLine: OutOfLine?
    /// ``rowID``'s value when ``Flags/hasRowID`` is set.
    private var storedRowID: Int64 = 0
    /// ``changes`` below index 32: the rest, for the rare entity with more
    /// attributes, lives in ``extras``.
    private var changedBits: UInt32 = 0
    var phase: Phase = .unmanaged
    /// The context's lists the object is on: changed objects (put there
    /// once, on the first change since the last save) and deleted objects.
    var listings: Listings = []
    /// The object's slot in ``observationGroup``.
    @usableFromInline var observationSlot: UInt8 = 0
    @usableFromInline var flags: Flags = [.observable]

    /// The references to what an object gets only when it needs it, in one
    /// word (an enum of two class references takes its case from the
    /// pointers' spare bits): its observation group, taken on the first read
    /// that may be tracked, or its ``Extras``, which hold the group once
    /// they exist. A word less per object moves a fetched object of six
    /// stored properties into glibc's next smaller chunk (`memory-user` in
    /// Benchmarks/).
    @usableFromInline
    enum OutOfLine {
        case group(ObservationGroup)
        case extras(Extras)
    }

    /// What few objects need: see ``Extras``. Once made, never taken away.
    @usableFromInline var extras: Extras? {
        if case .extras(let extras) = outOfLine { return extras }
        return nil
    }

    /// The object's place in an ``ObservationGroup``, the registrar it shares
    /// with a few other objects: taken on the first read that may be tracked
    /// (see ``isObservable``) and kept for life. While it is `nil` nothing can
    /// observe the object, so setters and merges skip Observation entirely.
    @usableFromInline var observationGroup: ObservationGroup? {
        @inlinable @inline(__always) get {
            switch outOfLine {
            case .group(let group): group
            case .extras(let extras): extras.observationGroup
            case nil: nil
            }
        }
        set {
            if case .extras(let extras) = outOfLine {
                extras.observationGroup = newValue
            } else {
                outOfLine = newValue.map { .group($0) }
            }
        }
    }

    /// The object's one-bit fields, in one byte.
    @usableFromInline
    struct Flags: OptionSet, Sendable {
        @usableFromInline let rawValue: UInt8
        @usableFromInline init(rawValue: UInt8) { self.rawValue = rawValue }
        /// See ``RecordState/isObservable``.
        @usableFromInline static let observable = Flags(rawValue: 1)
        /// See ``RecordState/isStale``.
        static let stale = Flags(rawValue: 2)
        /// ``RecordState/rowID`` is set.
        static let hasRowID = Flags(rawValue: 4)
        /// See ``RecordState/isForgotten``.
        static let forgotten = Flags(rawValue: 8)
    }

    /// Whether the object stood for a stored record that its context forgot
    /// without this object's own deletion being saved: the record was
    /// deleted elsewhere (a merge, a conflict, a refresh that found it
    /// gone), or the context was reset or went away (a stack cleaned up).
    /// Such an object is never taken for a new one: saving, inserting or
    /// deleting it is refused with `.invalidObject`.
    var isForgotten: Bool { flags.contains(.forgotten) }

    /// The context the object belongs to, if any.
    var context: RecordContext? {
        contextReference?.takeUnretainedValue()
    }

    /// The identity of ``context``, for comparing without retaining it.
    var owner: ObjectIdentifier? {
        contextReference.map { ObjectIdentifier($0.takeUnretainedValue()) }
    }

    /// The row id of a saved object (also kept while a deleted one awaits
    /// its save).
    var rowID: Int64? {
        get { flags.contains(.hasRowID) ? storedRowID : nil }
        set {
            if let newValue {
                storedRowID = newValue
                flags.insert(.hasRowID)
            } else {
                flags.remove(.hasRowID)
            }
        }
    }

    /// Whether reads of the object's properties register with Observation:
    /// `true` for objects in no context and in an observable context
    /// (``RecordContext/isObservable``), `false` in background contexts.
    @usableFromInline var isObservable: Bool {
        @inline(__always) get { flags.contains(.observable) }
        set { if newValue { flags.insert(.observable) } else { flags.remove(.observable) } }
    }

    /// Whether the stored row differs in form from the object's values at
    /// the same ``version``: a save stored a text attribute in NFC, which
    /// Swift's `==` cannot tell from the object's value. A fetch normally
    /// skips re-reading an object whose row is still at its version; a stale
    /// one is re-read.
    var isStale: Bool {
        get { flags.contains(.stale) }
        set { if newValue { flags.insert(.stale) } else { flags.remove(.stale) } }
    }

    /// The per-object state that most objects never need, kept out of line.
    @usableFromInline
    final class Extras {
        // unsafe(context-confined): as the object's own fields.
        /// ``RecordState/observationGroup`` once the object has extras.
        @usableFromInline var observationGroup: ObservationGroup?
        var snapshot: [SQLValue]?
        var storedValues: [SQLValue]?
        var readToOnes: [Int: SQLValue]?
        /// The changed attributes from index 32 on (see ``changes``).
        var changedAbove32: AttributeMask?
        init() {}
    }

    /// The extras, made now if the object had none.
    private var madeExtras: Extras {
        mutating get {
            if let extras { return extras }
            let made = Extras()
            made.observationGroup = observationGroup
            outOfLine = .extras(made)
            return made
        }
    }

    /// The stored values as last read or written, kept for entities that do not
    /// track their own changes, so that a save can find what changed.
    var snapshot: [SQLValue]? {
        get { extras?.snapshot }
        set {
            if newValue == nil, extras?.snapshot == nil { return }
            madeExtras.snapshot = newValue
        }
    }

    /// The row's stored values (attributes, then to-ones) at ``version``, kept
    /// only by a context whose merge policy is `.storeTrumps`: resolving a
    /// conflict property by property needs to know which ones the store
    /// changed since.
    var storedValues: [SQLValue]? {
        get { extras?.storedValues }
        set {
            if newValue == nil, extras?.storedValues == nil { return }
            madeExtras.storedValues = newValue
        }
    }

    /// The foreign key each changed to-one held before its first change since
    /// the object was read or saved, by column (``EntityDescription/columnName(_:)``
    /// index): kept when the context had no ``storedValues``, so that a
    /// context whose merge policy becomes `.storeTrumps` after the change
    /// still tells a to-one changed only here from one the store changed.
    var readToOnes: [Int: SQLValue]? {
        get { extras?.readToOnes }
        set {
            if newValue == nil, extras?.readToOnes == nil { return }
            madeExtras.readToOnes = newValue
        }
    }

    /// The value of the column at `column` (``EntityDescription/columnName(_:)``
    /// index) as the object read it, which `.storeTrumps` compares with the
    /// store's: from ``storedValues`` when kept, else, for a to-one changed
    /// since, from ``readToOnes``; `nil` when unknown.
    func valueAsRead(_ column: Int) -> SQLValue? {
        if let read = storedValues { return read.indices.contains(column) ? read[column] : nil }
        return readToOnes?[column]
    }

    /// The attributes changed since the object was read or last saved.
    var changes: AttributeMask {
        get {
            guard var mask = extras?.changedAbove32 else { return AttributeMask(bits: UInt64(changedBits), overflow: nil) }
            mask.bits |= UInt64(changedBits)
            return mask
        }
        set {
            changedBits = UInt32(truncatingIfNeeded: newValue.bits)
            var above = newValue
            above.bits &= ~UInt64(UInt32.max)
            if !above.isEmpty || extras?.changedAbove32 != nil {
                madeExtras.changedAbove32 = above.isEmpty ? nil : above
            }
        }
    }

    /// Makes ``changes`` empty without building the mask to empty it: a
    /// fetch does it once per object.
    mutating func clearChanges() {
        changedBits = 0
        if extras?.changedAbove32 != nil { extras?.changedAbove32 = nil }
    }

    struct Listings: OptionSet {
        let rawValue: UInt8
        static let updated = Listings(rawValue: 1)
        static let deleted = Listings(rawValue: 2)
    }

    /// Creates the state of an object that belongs to no context yet; an entity
    /// written by hand initializes its `recordState` property with it.
    public init() {}

    /// Records that the attribute at `index` was given a new value. Returns the
    /// context to notify when the object is not yet on its list of changed
    /// objects.
    ///
    /// Called through ``Entity/didChangeAttribute(at:)`` by the accessors the
    /// `@Entity` macro generates; an entity that does not track its changes
    /// never calls it.
    public mutating func attributeDidChange(at index: Int) -> RecordContext? {
        // Before insertion (an initializer assigning its properties) and for
        // inserted objects every attribute is written anyway: nothing to track.
        guard phase == .managed else { return nil }
        if index < 32 {
            changedBits |= 1 << UInt32(index)
        } else {
            changes.insert(index)
        }
        return listings.contains(.updated) ? nil : context
    }

    /// Whether the object belongs to `context`.
    @inline(__always)
    func belongs(to context: RecordContext) -> Bool {
        // unsafe(detached-before-free): compares addresses, touches neither object.
        contextReference?.toOpaque() == Unmanaged.passUnretained(context).toOpaque()
    }

    mutating func attach(to context: RecordContext) {
        #if DEBUG
        // The checked copy of the rule: the context counts the objects naming
        // it, and asserts that none is left once it has detached them.
        self.context?.objectsNamingIt.subtract(1, ordering: .relaxed)
        context.objectsNamingIt.add(1, ordering: .relaxed)
        #endif
        // unsafe(detached-before-free): the context detaches this object
        // before it goes away (RecordContext.detachAll, reset, forget).
        contextReference = Unmanaged.passUnretained(context)
        isObservable = context.objectsAreObservable
    }

    /// Registers a read of `member` with Observation, joining a group first
    /// if the object has none: called by a read that may be tracked.
    @usableFromInline
    mutating func observationAccess(_ member: ObservationMember) {
        let group: ObservationGroup
        if let joined = observationGroup {
            group = joined
        } else {
            let place = ObservationGroup.join()
            observationGroup = place.group
            observationSlot = place.slot
            group = place.group
        }
        group.access(slot: observationSlot, member: member)
    }

    /// Runs `store`, which writes a value read from the store, telling the
    /// object's observers of `member` when it may have any (`group` is its
    /// ``observationGroup``, `slot` its ``observationSlot``) and `isChange`
    /// says the value differs. Static, so that no access to the object's
    /// state is open while `store` runs: it may change that state.
    @inlinable
    static func storeObserved(
        in group: ObservationGroup?, slot: UInt8, _ member: @autoclosure () -> ObservationMember,
        _ isChange: @autoclosure () -> Bool, _ store: () -> Void
    ) {
        if let group, isChange() {
            group.withMutation(slot: slot, member: member(), store)
        } else {
            store()
        }
    }

    /// Runs `mutation`, a change of `member`, telling the object's observers
    /// when it may have any; static for the reason ``storeObserved(in:slot:_:_:_:)`` is.
    @inlinable
    static func withObservedMutation(
        in group: ObservationGroup?, slot: UInt8, of member: @autoclosure () -> ObservationMember, _ mutation: () -> Void
    ) {
        if let group {
            group.withMutation(slot: slot, member: member(), mutation)
        } else {
            mutation()
        }
    }

    /// Makes the object saved and registered in `context`.
    mutating func manage(in context: RecordContext, rowID: Int64, version: Int64) {
        // An object inserted into the context is attached already.
        if !belongs(to: context) { attach(to: context) }
        self.rowID = rowID
        self.version = version
        phase = .managed
        clearChanges()
    }

    /// Forgets the context: the object is unmanaged again, keeping its values.
    /// With `forgotten`, a saved object is marked ``isForgotten``; without,
    /// it may be inserted again as a new record (an insert taken back, a
    /// deletion this context saved).
    mutating func detach(forgotten: Bool = false) {
        let marked: Flags = forgotten && (phase == .managed || phase == .deleted) ? [.observable, .forgotten] : [.observable]
        #if DEBUG
        context?.objectsNamingIt.subtract(1, ordering: .relaxed)
        #endif
        contextReference = nil
        rowID = nil
        phase = .unmanaged
        clearChanges()
        snapshot = nil
        storedValues = nil
        readToOnes = nil
        listings = []
        flags = marked
        // Related objects hold each other strongly; forgetting them here breaks
        // those cycles once the context is gone.
        relations = []
    }
}

/// The in-memory value of one relationship of one object.
enum RelationValue {
    /// Not read yet: loaded from the store on first access (for a saved
    /// object) or empty (for a new one).
    case unloaded
    /// A to-one whose row id was read with the object, not yet looked up.
    case fault(Int64?)
    case toOne((any Entity)?)
    case toMany([any Entity])
}

/// A set of attribute indexes: a bit mask for the first 64, a set beyond.
struct AttributeMask: Hashable {
    fileprivate var bits: UInt64 = 0
    fileprivate private(set) var overflow: Set<Int>?

    var isEmpty: Bool { bits == 0 && overflow == nil }

    @inline(__always)
    mutating func insert(_ index: Int) {
        if index < 64 {
            bits |= 1 << UInt64(index)
        } else {
            overflow = (overflow ?? []).union([index])
        }
    }

    func contains(_ index: Int) -> Bool {
        index < 64 ? bits & (1 << UInt64(index)) != 0 : overflow?.contains(index) ?? false
    }

    mutating func remove(_ index: Int) {
        if index < 64 {
            bits &= ~(1 << UInt64(index))
        } else if var set = overflow {
            set.remove(index)
            overflow = set.isEmpty ? nil : set
        }
    }

    mutating func removeAll() {
        bits = 0
        overflow = nil
    }

    mutating func formUnion(_ other: AttributeMask) {
        bits |= other.bits
        if let more = other.overflow { overflow = (overflow ?? []).union(more) }
    }

    func isDisjoint(with other: AttributeMask) -> Bool {
        bits & other.bits == 0 && (overflow.map { other.overflow?.isDisjoint(with: $0) ?? true } ?? true)
    }

    /// The indexes in ascending order.
    var indexes: [Int] {
        var result: [Int] = []
        result.reserveCapacity(bits.nonzeroBitCount + (overflow?.count ?? 0))
        var remaining = bits
        while remaining != 0 {
            let index = remaining.trailingZeroBitCount
            result.append(index)
            remaining &= remaining - 1
        }
        if let overflow { result += overflow.sorted() }
        return result
    }

    init() {}

    fileprivate init(bits: UInt64, overflow: Set<Int>?) {
        self.bits = bits
        self.overflow = overflow
    }

    init(_ indexes: some Sequence<Int>) {
        for index in indexes { insert(index) }
    }
}

extension Entity {
    /// Runs `body` on the object's state in place, through the setter's
    /// `_modify` accessor. Reading `recordState` through the protocol (from
    /// `any Entity` or an unspecialized `T`) copies all of it, retaining
    /// each reference it holds and releasing them after; this hands `body`
    /// the stored value itself, for a read as for a change. `body` must not
    /// reach this object's state again.
    @inline(__always)
    func withState<R>(_ body: (inout RecordState) throws -> R) rethrows -> R {
        try body(&recordState)
    }

    /// The object's life-cycle phase, read in place (``withState(_:)``).
    var statePhase: RecordState.Phase { withState { $0.phase } }

    /// The object's row id, read in place (``withState(_:)``).
    var stateRowID: Int64? { withState { $0.rowID } }

    /// The object's context, read in place (``withState(_:)``).
    var stateContext: RecordContext? { withState { $0.context } }
    /// The identity of the object's context, read in place (``withState(_:)``).
    var stateOwner: ObjectIdentifier? { withState { $0.owner } }

    /// Whether the object belongs to `context`, read in place (``withState(_:)``).
    @inline(__always)
    func stateBelongs(to context: RecordContext) -> Bool { withState { $0.belongs(to: context) } }
}
