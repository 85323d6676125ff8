/// The bookkeeping a context keeps inside each entity object: which context it
/// belongs to, its row id, its life-cycle phase and which attributes changed.
///
/// An entity declares one stored property of this type and otherwise leaves it
/// alone; the `@Entity` macro declares it for you.
///
/// ```swift
/// final class Tag: Entity {
///     var recordState = RecordState()
///     …
/// }
/// ```
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

    weak var context: RecordContext?
    var rowID: Int64?
    var phase: Phase = .unmanaged
    var changes = AttributeMask()
    /// The stored values as last read or written, kept for entities that do not
    /// track their own changes, so that a save can find what changed.
    var snapshot: [SQLValue]?

    public init() {}

    /// Records that the attribute at `index` was given a new value. Returns the
    /// context to notify when this is the object's first pending change.
    ///
    /// Called by the accessors the `@Entity` macro generates; an entity that does
    /// not track its changes never calls it.
    public mutating func attributeDidChange(at index: Int) -> RecordContext? {
        // Before insertion (an initializer assigning its properties) and for
        // inserted objects every attribute is written anyway: nothing to track.
        guard phase == .managed else { return nil }
        let wasClean = changes.isEmpty
        changes.insert(index)
        return wasClean ? context : nil
    }
}

/// A set of attribute indexes: a bit mask for the first 64, a set beyond.
struct AttributeMask: Hashable {
    private var bits: UInt64 = 0
    private var overflow: Set<Int> = []

    var isEmpty: Bool { bits == 0 && overflow.isEmpty }

    mutating func insert(_ index: Int) {
        if index < 64 { bits |= 1 << UInt64(index) } else { overflow.insert(index) }
    }

    func contains(_ index: Int) -> Bool {
        index < 64 ? bits & (1 << UInt64(index)) != 0 : overflow.contains(index)
    }

    mutating func removeAll() {
        bits = 0
        overflow.removeAll()
    }

    /// The indexes in ascending order.
    var indexes: [Int] {
        var result: [Int] = []
        var remaining = bits
        while remaining != 0 {
            let index = remaining.trailingZeroBitCount
            result.append(index)
            remaining &= remaining - 1
        }
        return result + overflow.sorted()
    }
}
