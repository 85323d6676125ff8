/// A context's lists of changed and deleted saved objects, with the rule that
/// ties them to each object's ``RecordState/listings`` flags:
///
/// **An object's `.updated` (`.deleted`) flag, while it belongs to the
/// context, is set exactly when `updated` (`deleted`) holds an entry for
/// it.** Listing an object sets its flag and appends it once; compacting
/// drops the entries no longer wanted and clears their flags; clearing
/// clears every flag of the context's objects and empties the lists. An
/// object that leaves the context while listed keeps a stale entry (its
/// flag is cleared with the rest of its state): the list may then hold it
/// twice once it is back (`mayRepeat`), until the next compaction.
///
/// Nothing else sets or clears these flags, except a save's apply (which
/// clears the flags of what it wrote before ``removeAllWritten()``), the
/// settling of a resolved conflict and an import's rollback, each noted
/// where it happens. Reading (``pending(_:in:)``) changes nothing.
struct ChangeLists {
    /// Saved objects changed since the last save, in the order of their first
    /// change. Entries whose changes were dropped since, or that were deleted
    /// or forgotten, stay until the list is next compacted.
    private(set) var updated: [any Entity] = []
    /// Saved objects marked for deletion, in the order of their deletion; it
    /// may hold objects whose deletion was taken back.
    private(set) var deleted: [any Entity] = []
    /// The lists that may hold an object twice: set when an object left the
    /// context while listed, cleared when the list is next compacted.
    private var mayRepeat: RecordState.Listings = []

    /// Where an entry stands.
    enum Listing {
        /// Stays listed and is returned.
        case pending
        /// Stays listed, not returned.
        case keep
        /// Leaves the list.
        case drop
    }

    /// Lists an object whose `.updated` flag is clear as changed.
    @inline(__always)
    mutating func listUpdated(_ object: any Entity) {
        object.recordState.listings.insert(.updated)
        updated.append(object)
    }

    /// Lists an object as deleted, once.
    @inline(__always)
    mutating func listDeleted(_ object: any Entity) {
        guard object.withState({ $0.listings.insert(.deleted).inserted }) else { return }
        deleted.append(object)
    }

    /// Notes that an object with these flags left the context: its stale
    /// entries stay, so the lists may now hold it twice.
    mutating func noteLeft(_ listings: RecordState.Listings) {
        mayRepeat.formUnion(listings)
    }

    /// Notes that flags were restored by hand (an import's rollback), so the
    /// list may hold an object twice.
    mutating func noteMayRepeat(_ flag: RecordState.Listings) {
        mayRepeat.formUnion(flag)
    }

    /// The entries of the list for `flag` that `listing` returns, each once,
    /// without changing anything.
    func pending(
        _ flag: RecordState.Listings, in context: RecordContext, _ listing: (RecordState) -> Listing
    ) -> [any Entity] {
        var seen = Set<ObjectIdentifier>()
        var result: [any Entity] = []
        let repeats = mayRepeat.contains(flag)
        for object in flag == .updated ? updated : deleted {
            guard object.withState({ $0.listings.contains(flag) && listing($0) == .pending }) else { continue }
            if repeats, !seen.insert(ObjectIdentifier(object)).inserted { continue }
            result.append(object)
        }
        return result
    }

    /// Compacts the list for `flag` with `listing` and returns its pending
    /// entries, each once. The flag stays set on the objects kept and is
    /// cleared on the others (those still `context`'s).
    mutating func collect(
        _ flag: RecordState.Listings, in context: RecordContext, _ listing: (RecordState) -> Listing
    ) -> [any Entity] {
        let repeats = mayRepeat.contains(flag)
        mayRepeat.remove(flag)
        let list = flag == .updated ? updated : deleted
        var seen = Set<ObjectIdentifier>()
        var kept: [any Entity] = []
        var pending: [any Entity] = []
        kept.reserveCapacity(list.count)
        pending.reserveCapacity(list.count)
        for object in list {
            guard object.withState({ $0.listings.contains(flag) }) else { continue }
            if repeats, !seen.insert(ObjectIdentifier(object)).inserted { continue }
            switch object.withState({ listing($0) }) {
            case .pending:
                pending.append(object)
                kept.append(object)
            case .keep:
                kept.append(object)
            case .drop:
                // A stale entry for an object that now belongs to another
                // context: the flag is that context's, leave it.
                object.withState { state in if state.belongs(to: context) { state.listings.remove(flag) } }
            }
        }
        if flag == .updated { updated = kept } else { deleted = kept }
        return pending
    }

    /// Clears the flags of the context's listed objects and empties the lists.
    mutating func clear(in context: RecordContext) {
        // Only this context's flags: a stale entry may be another context's object now.
        for object in updated where object.stateBelongs(to: context) {
            object.recordState.listings.remove(.updated)
        }
        for object in deleted where object.stateBelongs(to: context) {
            object.recordState.listings.remove(.deleted)
        }
        removeAllWritten()
    }

    /// Empties the lists once every flag of theirs is clear: after a save
    /// cleared those of the objects it wrote or forgot, or a reset detached
    /// every object.
    mutating func removeAllWritten() {
        updated.removeAll()
        deleted.removeAll()
        mayRepeat = []
    }
}
