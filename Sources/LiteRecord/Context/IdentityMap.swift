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

    var isEmpty: Bool { tables.values.allSatisfy { $0.count == 0 } }

    func removeAll() {
        tables.removeAll()
        recent = nil
    }
}

/// Objects by row id: linear probing over a power-of-two table, at most 3/4
/// full, with backward-shift deletion (no tombstones).
final class ObjectTable {
    @exclusivity(unchecked) private(set) var count = 0
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private var shift: UInt64
    @exclusivity(unchecked) private var keys: UnsafeMutablePointer<Int64>
    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<(any Entity)?>

    init(capacity minimum: Int = 16) {
        var capacity = 16
        while capacity < minimum { capacity <<= 1 }
        self.capacity = capacity
        shift = UInt64(64 - capacity.trailingZeroBitCount)
        keys = .allocate(capacity: capacity)
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: nil, count: capacity)
    }

    deinit {
        slots.deinitialize(count: capacity)
        slots.deallocate()
        keys.deallocate()
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
        while slots[index] != nil {
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
        while slots[next] != nil {
            let distanceFromHome = (next - home(keys[next])) & mask
            if distanceFromHome >= (next - hole) & mask {
                keys[hole] = keys[next]
                slots[hole] = slots[next]
                hole = next
            }
            next = (next + 1) & mask
        }
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
        for index in 0..<capacity {
            if let object = slots[index] { result.append(object) }
        }
        return result
    }

    private func grow() {
        let oldCapacity = capacity
        let oldKeys = keys
        let oldSlots = slots
        capacity = oldCapacity * 2
        shift -= 1
        keys = .allocate(capacity: capacity)
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: nil, count: capacity)
        let mask = capacity - 1
        for index in 0..<oldCapacity {
            guard let object = (oldSlots + index).move() else { continue }
            var target = home(oldKeys[index])
            while slots[target] != nil { target = (target + 1) & mask }
            keys[target] = oldKeys[index]
            slots[target] = object
        }
        oldSlots.deallocate()
        oldKeys.deallocate()
    }
}
