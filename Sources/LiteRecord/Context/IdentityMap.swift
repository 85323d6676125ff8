/// A context's identity map: for each entity, the registered objects by row id.
///
/// Every fetched row is looked up here and every new object registered, so
/// this is on the hot path of a fetch. Each entity gets an ``ObjectTable``, an
/// open-addressing table keyed by row id with a multiplicative hash, which
/// costs a fraction of `Dictionary`'s seeded SipHash. The table of the entity
/// used last is kept at hand, so a fetch finds its table without hashing.
final class IdentityMap {
    // unsafe(context-confined): the map is its context's, used only on the
    // context's thread or actor, one access at a time.
    @exclusivity(unchecked) private var tables: [ObjectIdentifier: ObjectTable] = [:]
    @exclusivity(unchecked) private var recent: (type: ObjectIdentifier, table: ObjectTable)?

    /// The table of `type`, created when missing.
    func table(for type: any Entity.Type) -> ObjectTable {
        let id = ObjectIdentifier(type)
        if let recent, recent.type == id { return recent.table }
        let table: ObjectTable
        if let existing = tables[id] {
            table = existing
        } else {
            table = ObjectTable(of: type)
            tables[id] = table
        }
        recent = (id, table)
        return table
    }

    /// The registered object of `type` with `rowID`.
    func object(_ type: any Entity.Type, rowID: Int64) -> (any Entity)? {
        let id = ObjectIdentifier(type)
        if let recent, recent.type == id { return recent.table.entity(rowID) }
        return tables[id]?.entity(rowID)
    }

    /// Every registered object.
    var objects: [any Entity] {
        tables.values.flatMap(\.objects)
    }

    /// Calls `body` with every registered object, in the order of
    /// ``objects``, without building that list: a context going away visits
    /// all of its objects while they are alive, and a list of them would
    /// cost 16 bytes per object twice over at that moment.
    func forEachObject(_ body: (any Entity) -> Void) {
        for table in tables.values { table.forEachObject(body) }
    }

    func removeAll() {
        tables.removeAll()
        recent = nil
    }
}

/// Objects by row id: linear probing over a power-of-two table, at most 4/5
/// full, with backward-shift deletion (no tombstones).
///
/// A slot costs 16 bytes: its key, and the object as a plain reference (the
/// table knows its entity, so it keeps no protocol witness per object). An
/// empty slot holds the key `Int64.min`; the one object whose row id really is
/// `Int64.min` lives beside the table. Probing reads only the keys, never an
/// object reference, so a search does no reference counting.
final class ObjectTable {
    // unsafe(context-confined): the table is its context's identity map's.
    // unsafe(owned-buffer): `keys` and `slots` are this table's own, made by
    // `allocate`, freed in `deinit` or by `grow`, never handed out.
    @exclusivity(unchecked) private(set) var count = 0
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private var shift: UInt64
    @exclusivity(unchecked) private var keys: UnsafeMutablePointer<Int64>
    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<AnyObject?>
    /// The object registered under `Int64.min`, the key that marks empty slots.
    @exclusivity(unchecked) private var minimumKeyObject: AnyObject?
    /// Makes a stored reference the entity it is (the table's entity type).
    private let wrap: (AnyObject) -> any Entity

    private static let empty = Int64.min

    /// The number of slots, for tests of the table's footprint.
    var slotCount: Int { capacity }

    convenience init(of type: any Entity.Type, capacity minimum: Int = 16) {
        self.init(capacity: minimum, wrapping: Self.wrapper(for: type))
    }

    private init(capacity minimum: Int, wrapping wrap: @escaping (AnyObject) -> any Entity) {
        var capacity = 16
        while capacity < minimum { capacity <<= 1 }
        self.capacity = capacity
        shift = UInt64(64 - capacity.trailingZeroBitCount)
        self.wrap = wrap
        (keys, slots) = Self.allocate(capacity)
    }

    private static func wrapper<T: Entity>(for type: T.Type) -> (AnyObject) -> any Entity {
        // unsafe(keyed-by-type): the table of `T` holds only `T`s.
        { unsafeDowncast($0, to: T.self) }
    }

    deinit {
        slots.deinitialize(count: capacity)
        // unsafe(owned-buffer): the table's own buffers, freed once.
        slots.deallocate()
        keys.deallocate()
    }

    private static func allocate(_ capacity: Int) -> (UnsafeMutablePointer<Int64>, UnsafeMutablePointer<AnyObject?>) {
        // unsafe(owned-buffer): owned by the table that asked, which frees them.
        let keys = UnsafeMutablePointer<Int64>.allocate(capacity: capacity)
        keys.initialize(repeating: empty, count: capacity)
        let slots = UnsafeMutablePointer<AnyObject?>.allocate(capacity: capacity)  // unsafe(owned-buffer)
        slots.initialize(repeating: nil, count: capacity)
        return (keys, slots)
    }

    /// Where the search for `rowID` starts: Fibonacci hashing spreads the
    /// consecutive row ids SQLite hands out evenly over the table.
    @inline(__always)
    private func home(_ rowID: Int64) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: rowID) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The slot holding `rowID` (not `Int64.min`), or the empty slot where it
    /// would go.
    @inline(__always)
    private func slot(of rowID: Int64) -> (index: Int, found: Bool) {
        let mask = capacity - 1
        var index = home(rowID)
        while true {
            let key = keys[index]
            if key == rowID { return (index, true) }
            if key == Self.empty { return (index, false) }
            index = (index + 1) & mask
        }
    }

    /// The object registered under `rowID`, as a plain reference: the caller
    /// knows its entity.
    @inline(__always)
    subscript(rowID: Int64) -> AnyObject? {
        if rowID == Self.empty { return minimumKeyObject }
        let (index, found) = slot(of: rowID)
        return found ? slots[index] : nil
    }

    /// The object registered under `rowID`.
    func entity(_ rowID: Int64) -> (any Entity)? {
        self[rowID].map(wrap)
    }

    /// Registers `object` under `rowID`, replacing any object there, and
    /// returns the object it replaced when that was another one.
    @discardableResult
    func insert(_ object: any Entity, rowID: Int64) -> (any Entity)? {
        let replaced: AnyObject?
        if rowID == Self.empty {
            if minimumKeyObject == nil { count += 1 }
            replaced = minimumKeyObject
            minimumKeyObject = object
        } else {
            if (count + 1) * 5 > capacity * 4 { grow() }
            let (index, found) = slot(of: rowID)
            if !found {
                keys[index] = rowID
                count += 1
            }
            replaced = slots[index]
            slots[index] = object
        }
        guard let replaced, replaced !== object else { return nil }
        return wrap(replaced)
    }

    /// Removes and returns the object under `rowID`.
    @discardableResult
    func remove(_ rowID: Int64) -> (any Entity)? {
        if rowID == Self.empty {
            guard let removed = minimumKeyObject else { return nil }
            minimumKeyObject = nil
            count -= 1
            return wrap(removed)
        }
        let (found, wasFound) = slot(of: rowID)
        guard wasFound, let removed = slots[found] else { return nil }
        // Shift later members of the probe run back into the hole, so that
        // every search still ends at the first empty slot.
        let mask = capacity - 1
        var hole = found
        var next = (hole + 1) & mask
        while keys[next] != Self.empty {
            let distanceFromHome = (next - home(keys[next])) & mask
            if distanceFromHome >= (next - hole) & mask {
                keys[hole] = keys[next]
                slots[hole] = slots[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        keys[hole] = Self.empty
        slots[hole] = nil
        count -= 1
        return wrap(removed)
    }

    /// Makes room for at least `additional` more objects without growing.
    func reserve(_ additional: Int) {
        while (count + additional) * 5 > capacity * 4 { grow() }
    }

    var objects: [any Entity] {
        var result: [any Entity] = []
        result.reserveCapacity(count)
        for index in 0..<capacity where keys[index] != Self.empty {
            if let object = slots[index] { result.append(wrap(object)) }
        }
        if let minimumKeyObject { result.append(wrap(minimumKeyObject)) }
        return result
    }

    /// Calls `body` with every object, in the order of ``objects``; `body`
    /// must not change the table.
    func forEachObject(_ body: (any Entity) -> Void) {
        for index in 0..<capacity where keys[index] != Self.empty {
            if let object = slots[index] { body(wrap(object)) }
        }
        if let minimumKeyObject { body(wrap(minimumKeyObject)) }
    }

    private func grow() {
        let (oldCapacity, oldKeys, oldSlots) = (capacity, keys, slots)
        capacity = oldCapacity * 2
        shift -= 1
        (keys, slots) = Self.allocate(capacity)
        let mask = capacity - 1
        for index in 0..<oldCapacity where oldKeys[index] != Self.empty {
            var target = home(oldKeys[index])
            while keys[target] != Self.empty { target = (target + 1) & mask }
            keys[target] = oldKeys[index]
            (slots + target).pointee = (oldSlots + index).move()
        }
        // Moved out above: what is left are nils, which own nothing.
        // unsafe(owned-buffer): the old buffers, which nothing points into now.
        oldSlots.deallocate()
        oldKeys.deallocate()
    }
}
