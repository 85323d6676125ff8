import Foundation

/// The stored form of one transaction's changes: one blob per transaction,
/// so that recording history costs one `INSERT` per commit however many rows
/// it changed (a row per change would cost a third of a plain insert again).
///
/// Layout (format 1), every count and length an unsigned LEB128 varint:
///
///     format (1 byte = 1)
///     entity count, then each entity name (length, UTF-8)
///     name-set count, then each set: name count, then each name (length, UTF-8)
///     change count, then each change:
///         kind (1 byte: 0 insert, 1 update, 2 delete), entity index,
///         row id as a zigzag varint of its difference from the previous change's,
///         for an update: its name-set index,
///         for a delete: tombstone count, then each name (length, UTF-8) and value
///     a value: tag (0 NULL, 1 INTEGER zigzag varint, 2 REAL 8 bytes little-endian,
///         3 TEXT length + UTF-8, 4 BLOB length + bytes)
enum HistoryCoding {
    static let format: UInt8 = 1

    /// One change as the recorder collects it.
    struct Change {
        var id: RecordID
        var kind: HistoryChange.Kind
        /// For an update: the index of its names in the transaction's lists
        /// (``UpdatedNames/lists``); 0, no names, otherwise.
        var names: Int = 0
        /// For a delete: where its preserved values are in the batch's
        /// ``HistoryBatch/tombstones``.
        var tombstone: Range<Int> = 0..<0
    }

    /// The blob of `batch`'s changes, and the names of the entities they
    /// are of (the blob's own list, which the history row also keeps for
    /// filtering).
    static func encode(_ batch: HistoryBatch) -> (blob: Data, entityNames: [String]) {
        let (entityOrder, entityIndexes) = indexEntities(of: batch.changes)
        var writer = Writer()
        writer.bytes.append(format)
        writer.varint(UInt64(entityOrder.count))
        for name in entityOrder { writer.string(name) }
        writer.varint(UInt64(batch.lists.count))
        for names in batch.lists {
            writer.varint(UInt64(names.count))
            for name in names { writer.string(name) }
        }
        writeChanges(of: batch, entityIndexes: entityIndexes, into: &writer)
        return (Data(writer.bytes), entityOrder)
    }

    /// The names of the entities `changes` are of, in the order of first
    /// appearance, and each change's index in that list.
    private static func indexEntities(of changes: [Change]) -> (order: [String], indexes: [Int]) {
        // Consecutive changes are mostly of one entity, so a name is hashed
        // once per run, not per change.
        var entities: [String: Int] = [:]
        var entityOrder: [String] = []
        var entityIndexes: [Int] = []
        entityIndexes.reserveCapacity(changes.count)
        var current: (name: String, index: Int)?
        for change in changes {
            if let current, current.name == change.id.entityName {
                entityIndexes.append(current.index)
                continue
            }
            let name = change.id.entityName
            let index: Int
            if let known = entities[name] {
                index = known
            } else {
                index = entityOrder.count
                entities[name] = index
                entityOrder.append(name)
            }
            current = (name, index)
            entityIndexes.append(index)
        }
        return (entityOrder, entityIndexes)
    }

    /// Writes the change count, then each change: kind, entity index, row
    /// id delta, and an update's name-set index or a delete's tombstone.
    private static func writeChanges(of batch: HistoryBatch, entityIndexes: [Int], into writer: inout Writer) {
        let changes = batch.changes
        writer.varint(UInt64(changes.count))
        var previous: Int64 = 0
        for (position, change) in changes.enumerated() {
            writer.bytes.append(change.kind.code)
            writer.varint(UInt64(entityIndexes[position]))
            writer.signed(change.id.rowID &- previous)
            previous = change.id.rowID
            switch change.kind {
            case .insert: break
            case .update: writer.varint(UInt64(change.names))
            case .delete:
                writer.varint(UInt64(change.tombstone.count))
                let values = batch.tombstones[change.tombstone]
                if values.count < 2 {
                    for (name, value) in values { writer.pair(name, value) }
                } else {
                    for (name, value) in values.sorted(by: { $0.name < $1.name }) { writer.pair(name, value) }
                }
            }
        }
    }

    /// `data`'s blob with its entities renamed by `names` (old name → new
    /// name), and its entity names after that; only the blob's list of
    /// entities is read and written again, the changes are copied as they are.
    static func renamingEntities(in data: Data, _ names: [String: String]) throws(LiteRecordError) -> (blob: Data, entityNames: [String]) {
        var reader = Reader(bytes: [UInt8](data))
        try checkFormat(try reader.byte())
        var entities: [String] = []
        for _ in 0..<(try reader.count()) {
            let name = try reader.string()
            entities.append(names[name] ?? name)
        }
        var writer = Writer()
        writer.bytes.append(format)
        writer.varint(UInt64(entities.count))
        for name in entities { writer.string(name) }
        writer.bytes.append(contentsOf: reader.bytes[reader.position...])
        return (Data(writer.bytes), entities)
    }

    /// Throws unless `byte` is the format this release reads.
    private static func checkFormat(_ byte: UInt8) throws(LiteRecordError) {
        guard byte == format else {
            throw LiteRecordError(
                .corruptStore,
                "a history transaction is in format \(byte), which this release of LiteRecord cannot read (it reads format \(format)): the store was written by a newer LiteRecord, or the history is damaged. Read it with the newer release, or delete the history (history: .disabled)"
            )
        }
    }

    /// The changes of a blob ``encode(_:)`` wrote, those of `entityNames` only when given.
    static func decode(_ data: Data, entityNames: Set<String>?) throws(LiteRecordError) -> [HistoryChange] {
        var reader = Reader(bytes: [UInt8](data))
        try checkFormat(try reader.byte())
        var entities: [String] = []
        for _ in 0..<(try reader.count()) { entities.append(try reader.string()) }
        var sets: [[String]] = []
        for _ in 0..<(try reader.count()) {
            var names: [String] = []
            for _ in 0..<(try reader.count()) { names.append(try reader.string()) }
            sets.append(names)
        }
        let count = try reader.count()
        var changes: [HistoryChange] = []
        changes.reserveCapacity(entityNames == nil ? count : 0)
        var previous: Int64 = 0
        for _ in 0..<count {
            guard let kind = HistoryChange.Kind(code: try reader.byte()) else { throw Reader.damaged }
            let entity = try reader.count()
            guard entity < entities.count else { throw Reader.damaged }
            let rowID = previous &+ (try reader.signed())
            previous = rowID
            var names: [String] = []
            var tombstone: [String: SQLValue] = [:]
            switch kind {
            case .insert: break
            case .update:
                let index = try reader.count()
                guard index < sets.count else { throw Reader.damaged }
                names = sets[index]
            case .delete:
                for _ in 0..<(try reader.count()) {
                    let name = try reader.string()
                    tombstone[name] = try reader.value()
                }
            }
            let name = entities[entity]
            if let entityNames, !entityNames.contains(name) { continue }
            changes.append(
                HistoryChange(
                    recordID: RecordID(entityName: name, rowID: rowID), kind: kind, updatedAttributes: names, tombstone: tombstone))
        }
        guard reader.isAtEnd else { throw Reader.damaged }
        return changes
    }

    private struct Writer {
        var bytes: [UInt8] = []

        mutating func varint(_ value: UInt64) {
            var value = value
            while value >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
                value >>= 7
            }
            bytes.append(UInt8(value))
        }

        mutating func signed(_ value: Int64) {
            varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
        }

        mutating func string(_ text: String) {
            varint(UInt64(text.utf8.count))
            bytes.append(contentsOf: text.utf8)
        }

        mutating func pair(_ name: String, _ value: SQLValue) {
            string(name)
            self.value(value)
        }

        mutating func value(_ value: SQLValue) {
            switch value {
            case .null: bytes.append(0)
            case .integer(let integer):
                bytes.append(1)
                signed(integer)
            case .real(let real):
                bytes.append(2)
                withUnsafeBytes(of: real.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
            case .text(let text):
                bytes.append(3)
                string(text)
            case .blob(let data):
                bytes.append(4)
                varint(UInt64(data.count))
                bytes.append(contentsOf: data)
            }
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        static let damaged = LiteRecordError(.corruptStore, "a history transaction's changes are damaged")

        var isAtEnd: Bool { position == bytes.count }

        mutating func byte() throws(LiteRecordError) -> UInt8 {
            guard position < bytes.count else { throw Self.damaged }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func varint() throws(LiteRecordError) -> UInt64 {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let next = try byte()
                guard shift < 64 else { throw Self.damaged }
                result |= UInt64(next & 0x7f) << shift
                if next < 0x80 { return result }
                shift += 7
            }
        }

        /// A count or index, bounded by what the blob could hold.
        mutating func count() throws(LiteRecordError) -> Int {
            let value = try varint()
            guard value <= UInt64(bytes.count) else { throw Self.damaged }
            return Int(value)
        }

        mutating func signed() throws(LiteRecordError) -> Int64 {
            let raw = try varint()
            return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
        }

        mutating func take(_ count: Int) throws(LiteRecordError) -> ArraySlice<UInt8> {
            guard count <= bytes.count - position else { throw Self.damaged }
            defer { position += count }
            return bytes[position..<(position + count)]
        }

        mutating func string() throws(LiteRecordError) -> String {
            String(decoding: try take(try count()), as: UTF8.self)
        }

        mutating func value() throws(LiteRecordError) -> SQLValue {
            switch try byte() {
            case 0: return .null
            case 1: return .integer(try signed())
            case 2:
                var bits: UInt64 = 0
                for (shift, byte) in try take(8).enumerated() { bits |= UInt64(byte) << (8 * UInt64(shift)) }
                return .real(Double(bitPattern: bits))
            case 3: return .text(try string())
            case 4: return .blob(Data(try take(try count())))
            default: throw Self.damaged
            }
        }
    }
}

extension HistoryChange.Kind {
    var code: UInt8 {
        switch self {
        case .insert: 0
        case .update: 1
        case .delete: 2
        }
    }

    init?(code: UInt8) {
        switch code {
        case 0: self = .insert
        case 1: self = .update
        case 2: self = .delete
        default: return nil
        }
    }
}
