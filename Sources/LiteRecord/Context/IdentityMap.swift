/// A context's identity map: for each entity, the registered objects by row id.
///
/// Every fetched row is looked up here and every new object registered, so
/// this is on the hot path of a fetch. Each entity gets an ``ObjectTable``, an
/// open-addressing table keyed by row id with a multiplicative hash, which
/// costs a fraction of `Dictionary`'s seeded SipHash. The table of the entity
/// used last is kept at hand, so a fetch finds its table without hashing.
final class IdentityMap {
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
            table = ObjectTable()
            tables[id] = table
        }
        recent = (id, table)
        return table
    }

    /// The registered object of `type` with `rowID`.
    func object(_ type: any Entity.Type, rowID: Int64) -> (any Entity)? {
        let id = ObjectIdentifier(type)
        if let recent, recent.type == id { return recent.table[rowID] }
        return tables[id]?[rowID]
    }

    /// Every registered object.
    var objects: [any Entity] {
        tables.values.flatMap(\.objects)
    }

    func removeAll() {
        tables.removeAll()
        recent = nil
    }
}

/// Objects by row id: linear probing over a power-of-two table, at most 3/4
/// full, with backward-shift deletion (no tombstones). Probing reads only the
/// plain `occupied` and `keys` arrays, never an object reference, so a search
/// does no reference counting.
final class ObjectTable {
    @exclusivity(unchecked) private(set) var count = 0
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private var shift: UInt64
    @exclusivity(unchecked) private var occupied: UnsafeMutablePointer<Bool>
    @exclusivity(unchecked) private var keys: UnsafeMutablePointer<Int64>
    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<(any Entity)?>

    init(capacity minimum: Int = 16) {
        var capacity = 16
        while capacity < minimum { capacity <<= 1 }
        self.capacity = capacity
        shift = UInt64(64 - capacity.trailingZeroBitCount)
        (occupied, keys, slots) = Self.allocate(capacity)
    }

    deinit {
        slots.deinitialize(count: capacity)
        slots.deallocate()
        keys.deallocate()
        occupied.deallocate()
    }

    private static func allocate(
        _ capacity: Int
    ) -> (UnsafeMutablePointer<Bool>, UnsafeMutablePointer<Int64>, UnsafeMutablePointer<(any Entity)?>) {
        let occupied = UnsafeMutablePointer<Bool>.allocate(capacity: capacity)
        occupied.initialize(repeating: false, count: capacity)
        let keys = UnsafeMutablePointer<Int64>.allocate(capacity: capacity)
        keys.initialize(repeating: 0, count: capacity)
        let slots = UnsafeMutablePointer<(any Entity)?>.allocate(capacity: capacity)
        slots.initialize(repeating: nil, count: capacity)
        return (occupied, keys, slots)
    }

    /// Where the search for `rowID` starts: Fibonacci hashing spreads the
    /// consecutive row ids SQLite hands out evenly over the table.
    @inline(__always)
    private func home(_ rowID: Int64) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: rowID) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The slot holding `rowID`, or the empty slot where it would go.
    @inline(__always)
    private func slot(of rowID: Int64) -> (index: Int, found: Bool) {
        let mask = capacity - 1
        var index = home(rowID)
        while occupied[index] {
            if keys[index] == rowID { return (index, true) }
            index = (index + 1) & mask
        }
        return (index, false)
    }

    subscript(rowID: Int64) -> (any Entity)? {
        let (index, found) = slot(of: rowID)
        return found ? slots[index] : nil
    }

    /// Registers `object` under `rowID`, replacing any object there.
    func insert(_ object: any Entity, rowID: Int64) {
        if (count + 1) * 4 > capacity * 3 { grow() }
        let (index, found) = slot(of: rowID)
        if !found {
            occupied[index] = true
            keys[index] = rowID
            count += 1
        }
        slots[index] = object
    }

    /// Removes and returns the object under `rowID`.
    @discardableResult
    func remove(_ rowID: Int64) -> (any Entity)? {
        let (found, wasFound) = slot(of: rowID)
        guard wasFound else { return nil }
        let removed = slots[found]
        // Shift later members of the probe run back into the hole, so that
        // every search still ends at the first empty slot.
        let mask = capacity - 1
        var hole = found
        var next = (hole + 1) & mask
        while occupied[next] {
            let distanceFromHome = (next - home(keys[next])) & mask
            if distanceFromHome >= (next - hole) & mask {
                keys[hole] = keys[next]
                slots[hole] = slots[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        occupied[hole] = false
        slots[hole] = nil
        count -= 1
        return removed
    }

    /// Makes room for at least `additional` more objects without growing.
    func reserve(_ additional: Int) {
        while (count + additional) * 4 > capacity * 3 { grow() }
    }

    var objects: [any Entity] {
        var result: [any Entity] = []
        result.reserveCapacity(count)
        for index in 0..<capacity where occupied[index] {
            if let object = slots[index] { result.append(object) }
        }
        return result
    }

    private func grow() {
        let (oldCapacity, oldOccupied, oldKeys, oldSlots) = (capacity, occupied, keys, slots)
        capacity = oldCapacity * 2
        shift -= 1
        (occupied, keys, slots) = Self.allocate(capacity)
        let mask = capacity - 1
        for index in 0..<oldCapacity where oldOccupied[index] {
            var target = home(oldKeys[index])
            while occupied[target] { target = (target + 1) & mask }
            occupied[target] = true
            keys[target] = oldKeys[index]
            (slots + target).pointee = (oldSlots + index).move()
        }
        // Moved out above: what is left are nils, which own nothing.
        oldSlots.deallocate()
        oldKeys.deallocate()
        oldOccupied.deallocate()
    }
}
