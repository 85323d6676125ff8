public import Foundation

/// A value that can be bound as a SQL argument.
///
/// ```swift
/// try Person.fetch(sql: "age > ? AND name LIKE ?", arguments: [30, "A%"])
/// ```
public protocol SQLValueConvertible {
    /// The stored form of the value.
    ///
    /// - Throws: ``LiteRecordError`` of kind `.validationFailed` when the value
    ///   cannot be stored exactly (NaN, `-0.0`, a NaN `Date`, an unsigned
    ///   integer above `Int64.max`).
    func sqlValue() throws -> SQLValue
}

extension SQLValue: SQLValueConvertible {
    public func sqlValue() throws -> SQLValue { self }
}

/// A value stored in one column: the built-in attribute types (`Bool`,
/// integers, `Double`, `Float`, `String`, `Data`, `Date`, `UUID`, `URL`,
/// `Decimal`) conform. Conform your own types to store them in a column of
/// their own choosing.
public protocol AttributeValue: SQLValueConvertible {
    /// How the value is stored.
    static var attributeType: AttributeType { get }
    /// Creates the value from its stored form.
    ///
    /// - Throws: ``LiteRecordError`` of kind `.decodingFailed` when `sqlValue`
    ///   is not a stored form of this type.
    init(sqlValue: SQLValue) throws
    /// Reads the value straight from the current statement row. The default
    /// goes through ``init(sqlValue:)``; built-in types read the column directly.
    static func read(from row: Row, at index: Int) throws -> Self
}

extension AttributeValue {
    public static func read(from row: Row, at index: Int) throws -> Self {
        try readValue(from: row, at: index)
    }

    /// Reads through ``init(sqlValue:)``: the path for in-memory rows and for
    /// types without a direct column reader.
    static func readValue(from row: Row, at index: Int) throws -> Self {
        let value = row.value(at: index)
        if value.isNull { throw row.nullError(at: index, expected: "\(Self.self)") }
        do {
            return try Self(sqlValue: value)
        } catch let error as LiteRecordError {
            throw LiteRecordError(.decodingFailed, "\(row.entityName).\(row.columnName(index)): \(error.message)")
        }
    }
}

func decodingError<T>(_ value: SQLValue, as type: T.Type) -> LiteRecordError {
    LiteRecordError(.decodingFailed, "a stored \(value) cannot be read as \(T.self)")
}

// MARK: Integers

extension AttributeValue where Self: FixedWidthInteger {
    public init(sqlValue: SQLValue) throws { self = try Self.integer(from: sqlValue) }
    public func sqlValue() throws -> SQLValue { try integerSQLValue() }
    public static func read(from row: Row, at index: Int) throws -> Self { try readInteger(from: row, at: index) }

    // The bodies, inlined into each built-in type's own witnesses below so that
    // they run specialized instead of through the generic integer protocols.

    @inline(__always)
    static func integer(from sqlValue: SQLValue) throws -> Self {
        guard case .integer(let value) = sqlValue, let exact = Self(exactly: value) else {
            if case .real(let value) = sqlValue, let exact = Self(exactly: value) { return exact }
            throw decodingError(sqlValue, as: Self.self)
        }
        return exact
    }

    @inline(__always)
    func integerSQLValue() throws -> SQLValue {
        guard let value = Int64(exactly: self) else {
            throw LiteRecordError(.validationFailed, "\(Self.self) value above Int64.max cannot be stored in SQLite's 64-bit integers")
        }
        return .integer(value)
    }

    @inline(__always)
    static func readInteger(from row: Row, at index: Int) throws -> Self {
        guard let statement = row.statement else { return try readValue(from: row, at: index) }
        let cell = statement.cell(at: row.column(index))
        guard cell.isInteger else {
            if row.isNull(at: index) { throw row.nullError(at: index, expected: "\(Self.self)") }
            return try Self(sqlValue: row.value(at: index))
        }
        let value = cell.int64
        guard let exact = Self(exactly: value) else {
            throw LiteRecordError(.decodingFailed, "\(row.entityName).\(row.columnName(index)) holds \(value), which does not fit in \(Self.self)")
        }
        return exact
    }
}

extension Int: AttributeValue {
    public static var attributeType: AttributeType { .int }
    public init(sqlValue: SQLValue) throws { self = try Self.integer(from: sqlValue) }
    public func sqlValue() throws -> SQLValue { try integerSQLValue() }
    public static func read(from row: Row, at index: Int) throws -> Self { try readInteger(from: row, at: index) }
}

extension Int8: AttributeValue {
    public static var attributeType: AttributeType { .int8 }
    public init(sqlValue: SQLValue) throws { self = try Self.integer(from: sqlValue) }
    public func sqlValue() throws -> SQLValue { try integerSQLValue() }
    public static func read(from row: Row, at index: Int) throws -> Self { try readInteger(from: row, at: index) }
}

extension Int16: AttributeValue {
    public static var attributeType: AttributeType { .int16 }
    public init(sqlValue: SQLValue) throws { self = try Self.integer(from: sqlValue) }
    public func sqlValue() throws -> SQLValue { try integerSQLValue() }
    public static func read(from row: Row, at index: Int) throws -> Self { try readInteger(from: row, at: index) }
}

extension Int32: AttributeValue {
    public static var attributeType: AttributeType { .int32 }
    public init(sqlValue: SQLValue) throws { self = try Self.integer(from: sqlValue) }
    public func sqlValue() throws -> SQLValue { try integerSQLValue() }
    public static func read(from row: Row, at index: Int) throws -> Self { try readInteger(from: row, at: index) }
}

extension Int64: AttributeValue {
    public static var attributeType: AttributeType { .int64 }
    public init(sqlValue: SQLValue) throws { self = try Self.integer(from: sqlValue) }
    public func sqlValue() throws -> SQLValue { try integerSQLValue() }
    public static func read(from row: Row, at index: Int) throws -> Self { try readInteger(from: row, at: index) }
}

extension UInt: AttributeValue {
    public static var attributeType: AttributeType { .uint }
    public init(sqlValue: SQLValue) throws { self = try Self.integer(from: sqlValue) }
    public func sqlValue() throws -> SQLValue { try integerSQLValue() }
    public static func read(from row: Row, at index: Int) throws -> Self { try readInteger(from: row, at: index) }
}

extension UInt8: AttributeValue {
    public static var attributeType: AttributeType { .uint8 }
    public init(sqlValue: SQLValue) throws { self = try Self.integer(from: sqlValue) }
    public func sqlValue() throws -> SQLValue { try integerSQLValue() }
    public static func read(from row: Row, at index: Int) throws -> Self { try readInteger(from: row, at: index) }
}

extension UInt16: AttributeValue {
    public static var attributeType: AttributeType { .uint16 }
    public init(sqlValue: SQLValue) throws { self = try Self.integer(from: sqlValue) }
    public func sqlValue() throws -> SQLValue { try integerSQLValue() }
    public static func read(from row: Row, at index: Int) throws -> Self { try readInteger(from: row, at: index) }
}

extension UInt32: AttributeValue {
    public static var attributeType: AttributeType { .uint32 }
    public init(sqlValue: SQLValue) throws { self = try Self.integer(from: sqlValue) }
    public func sqlValue() throws -> SQLValue { try integerSQLValue() }
    public static func read(from row: Row, at index: Int) throws -> Self { try readInteger(from: row, at: index) }
}

extension UInt64: AttributeValue {
    public static var attributeType: AttributeType { .uint64 }
    public init(sqlValue: SQLValue) throws { self = try Self.integer(from: sqlValue) }
    public func sqlValue() throws -> SQLValue { try integerSQLValue() }
    public static func read(from row: Row, at index: Int) throws -> Self { try readInteger(from: row, at: index) }
}

// MARK: Bool

extension Bool: AttributeValue {
    public static var attributeType: AttributeType { .bool }

    public init(sqlValue: SQLValue) throws {
        switch sqlValue {
        case .integer(let value): self = value != 0
        case .real(let value): self = value != 0
        default: throw decodingError(sqlValue, as: Bool.self)
        }
    }

    public func sqlValue() throws -> SQLValue { .integer(self ? 1 : 0) }

    @inline(__always)
    public static func read(from row: Row, at index: Int) throws -> Bool {
        guard let statement = row.statement else { return try readValue(from: row, at: index) }
        let cell = statement.cell(at: row.column(index))
        guard cell.isInteger else {
            if row.isNull(at: index) { throw row.nullError(at: index, expected: "Bool") }
            return try Bool(sqlValue: row.value(at: index))
        }
        return cell.int64 != 0
    }
}

// MARK: Floating point

/// Set while a child context copies an ancestor's unsaved values into its
/// own object (`RecordContext.copiedValues(_:)`): that copy stores nothing,
/// so the values a store refuses (NaN, `-0.0`, a NaN `Date`) go over exactly
/// instead of failing. Read only on the refusal's branch, never on the
/// common path.
enum ExactCopy {
    @TaskLocal static var isActive = false
}

extension AttributeValue where Self: BinaryFloatingPoint {
    public init(sqlValue: SQLValue) throws { self = try Self.floatingPoint(from: sqlValue) }
    public func sqlValue() throws -> SQLValue { try floatingPointSQLValue() }
    public static func read(from row: Row, at index: Int) throws -> Self { try readFloatingPoint(from: row, at: index) }

    @inline(__always)
    static func floatingPoint(from sqlValue: SQLValue) throws -> Self {
        switch sqlValue {
        case .real(let value): Self(value)
        case .integer(let value): Self(value)
        default: throw decodingError(sqlValue, as: Self.self)
        }
    }

    @inline(__always)
    func floatingPointSQLValue() throws -> SQLValue {
        // SQLite turns a bound NaN into NULL, and a REAL column stores a whole
        // number as an integer, so -0.0 would come back as +0.0
        // (https://sqlite.org/datatype3.html#storage_classes_and_datatypes).
        // Every other value (subnormals, infinities, the extremes) survives bit
        // for bit. One comparison covers both refusals on the common path:
        // only zeros and NaNs fail `self != 0 && self == self`.
        guard self != 0 && self == self else {
            // A copy between contexts stores nothing: the value goes over exactly.
            if ExactCopy.isActive { return .real(Double(self)) }
            if isNaN {
                throw LiteRecordError(.validationFailed, "NaN cannot be stored: SQLite would store it as NULL")
            }
            if sign == .minus {
                throw LiteRecordError(
                    .validationFailed,
                    "-0.0 cannot be stored: SQLite keeps a whole REAL as an integer and would return +0.0; store 0.0 instead")
            }
            return .real(0)
        }
        return .real(Double(self))
    }

    @inline(__always)
    static func readFloatingPoint(from row: Row, at index: Int) throws -> Self {
        guard let statement = row.statement else { return try readValue(from: row, at: index) }
        let cell = statement.cell(at: row.column(index))
        if cell.isNumber { return Self(cell.double) }
        if cell.isNull { throw row.nullError(at: index, expected: "\(Self.self)") }
        throw LiteRecordError(.decodingFailed, "\(row.entityName).\(row.columnName(index)) holds \(row.value(at: index)), not a number")
    }
}

extension Double: AttributeValue {
    public static var attributeType: AttributeType { .double }
    public init(sqlValue: SQLValue) throws { self = try Self.floatingPoint(from: sqlValue) }
    public func sqlValue() throws -> SQLValue { try floatingPointSQLValue() }
    public static func read(from row: Row, at index: Int) throws -> Self { try readFloatingPoint(from: row, at: index) }
}
extension Float: AttributeValue {
    public static var attributeType: AttributeType { .float }
    public init(sqlValue: SQLValue) throws { self = try Self.floatingPoint(from: sqlValue) }
    public func sqlValue() throws -> SQLValue { try floatingPointSQLValue() }
    public static func read(from row: Row, at index: Int) throws -> Self { try readFloatingPoint(from: row, at: index) }
}

// MARK: Text and bytes

extension String: AttributeValue {
    public static var attributeType: AttributeType { .string }

    public init(sqlValue: SQLValue) throws {
        switch sqlValue {
        case .text(let text): self = text
        case .blob(let data): self = String(decoding: data, as: UTF8.self)
        case .integer(let value): self = String(value)
        case .real(let value): self = String(value)
        case .null: throw decodingError(sqlValue, as: String.self)
        }
    }

    public func sqlValue() throws -> SQLValue { .text(self) }

    @inline(__always)
    public static func read(from row: Row, at index: Int) throws -> String {
        guard let statement = row.statement else { return try readValue(from: row, at: index) }
        let cell = statement.cell(at: row.column(index))
        if cell.isNull {
            throw row.nullError(at: index, expected: "String")
        }
        return cell.string
    }
}

extension Data: AttributeValue {
    public static var attributeType: AttributeType { .data }

    public init(sqlValue: SQLValue) throws {
        switch sqlValue {
        case .blob(let data): self = data
        case .text(let text): self = Data(text.utf8)
        default: throw decodingError(sqlValue, as: Data.self)
        }
    }

    public func sqlValue() throws -> SQLValue { .blob(self) }

    @inline(__always)
    public static func read(from row: Row, at index: Int) throws -> Data {
        guard let statement = row.statement else { return try readValue(from: row, at: index) }
        let cell = statement.cell(at: row.column(index))
        if cell.isNull {
            throw row.nullError(at: index, expected: "Data")
        }
        return cell.data
    }
}

// MARK: Foundation values

extension Date: AttributeValue {
    public static var attributeType: AttributeType { .date }

    // Seconds since the reference date are exactly what `Date` holds, so the
    // round trip loses nothing (since-1970 would add a rounding step).
    public init(sqlValue: SQLValue) throws {
        switch sqlValue {
        case .real(let value): self = Date(timeIntervalSinceReferenceDate: value)
        case .integer(let value): self = Date(timeIntervalSinceReferenceDate: Double(value))
        default: throw decodingError(sqlValue, as: Date.self)
        }
    }

    // A NaN interval would be stored as NULL (read back as nil, or rejected by
    // NOT NULL with a message that hides the cause). A -0.0 interval comes back
    // as +0.0, which is the same `Date` (`==` and hashing agree), so it passes.
    public func sqlValue() throws -> SQLValue {
        let interval = timeIntervalSinceReferenceDate
        guard !interval.isNaN || ExactCopy.isActive else {
            throw LiteRecordError(.validationFailed, "a Date whose time interval is NaN cannot be stored: SQLite would store it as NULL")
        }
        return .real(interval)
    }

    @inline(__always)
    public static func read(from row: Row, at index: Int) throws -> Date {
        Date(timeIntervalSinceReferenceDate: try Double.read(from: row, at: index))
    }
}

extension UUID: AttributeValue {
    public static var attributeType: AttributeType { .uuid }

    public init(sqlValue: SQLValue) throws {
        switch sqlValue {
        case .text(let text):
            guard let uuid = UUID(uuidString: text) else { throw decodingError(sqlValue, as: UUID.self) }
            self = uuid
        case .blob(let data) where data.count == 16:
            let bytes = Array(data)
            self = UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                    bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
        default: throw decodingError(sqlValue, as: UUID.self)
        }
    }

    // Foundation's `uuidString` and `UUID(uuidString:)` go through
    // snprintf/sscanf on Linux, which cost more than the rest of a fetch or an
    // insert put together; these produce and accept exactly the same text.
    public func sqlValue() throws -> SQLValue { .text(UUIDText.format(self)) }

    @inline(__always)
    public static func read(from row: Row, at index: Int) throws -> UUID {
        guard let statement = row.statement else { return try readValue(from: row, at: index) }
        let cell = statement.cell(at: row.column(index))
        if cell.isText, let uuid = cell.withText(UUIDText.parse) {
            return uuid
        }
        return try readValue(from: row, at: index)
    }
}

/// Fast conversions between `UUID` and its canonical uppercase text
/// (`E621E1F8-C36C-495A-93FC-0C247A3E6E5F`).
enum UUIDText {
    static func format(_ uuid: UUID) -> String {
        // Spelled into a buffer on the stack, four bytes to a 64-bit word of
        // eight digits (`hexDigits(of:)`), then made a String in one go:
        // String(unsafeUninitializedCapacity:) validates what its closure wrote
        // on a path that cost more than the spelling, and a digit at a time
        // from a table cost as much again as making the String.
        var text: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &text) { out in
            withUnsafeBytes(of: uuid.uuid) { bytes in
                func digits(_ offset: Int) -> UInt64 {
                    hexDigits(of: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
                }
                let (first, second, third, fourth) = (digits(0), digits(4), digits(8), digits(12))
                let dash = UInt8(ascii: "-")
                // 8-4-4-4-12: the middle words are split in halves at the dashes.
                out.storeBytes(of: first.littleEndian, toByteOffset: 0, as: UInt64.self)
                out[8] = dash
                out.storeBytes(of: UInt32(truncatingIfNeeded: second).littleEndian, toByteOffset: 9, as: UInt32.self)
                out[13] = dash
                out.storeBytes(of: UInt32(truncatingIfNeeded: second >> 32).littleEndian, toByteOffset: 14, as: UInt32.self)
                out[18] = dash
                out.storeBytes(of: UInt32(truncatingIfNeeded: third).littleEndian, toByteOffset: 19, as: UInt32.self)
                out[23] = dash
                out.storeBytes(of: UInt32(truncatingIfNeeded: third >> 32).littleEndian, toByteOffset: 24, as: UInt32.self)
                out.storeBytes(of: fourth.littleEndian, toByteOffset: 28, as: UInt64.self)
            }
            return String(decoding: UnsafeRawBufferPointer(rebasing: out[0..<36]), as: UTF8.self)
        }
    }

    /// The eight uppercase hex digits of four bytes (`bytes` read little
    /// endian, so its lowest byte is the first in memory), the first digit in
    /// the lowest byte of the result.
    @inline(__always)
    static func hexDigits(of bytes: UInt32) -> UInt64 {
        // Byte i moves to byte 2i, then its high nibble stays there and its
        // low nibble goes to byte 2i + 1: one nibble per byte, in text order.
        var spread = UInt64(bytes)
        spread = (spread | spread << 16) & 0x0000_FFFF_0000_FFFF
        spread = (spread | spread << 8) & 0x00FF_00FF_00FF_00FF
        let nibbles = (spread >> 4) & 0x000F_000F_000F_000F | (spread & 0x000F_000F_000F_000F) << 8
        // '0' + n, and 7 more for n ≥ 10 ('A' is '0' + 17): n + 6 reaches 16
        // exactly then, and no byte carries into the next.
        let letters = ((nibbles &+ 0x0606_0606_0606_0606) & 0x1010_1010_1010_1010) >> 4
        return nibbles &+ 0x3030_3030_3030_3030 &+ letters &* 7
    }

    /// The UUID spelled by 36 bytes of hex digits and dashes (either case), or
    /// `nil` for anything else.
    ///
    /// Eight characters at a time in a 64-bit word (four in a 32-bit one):
    /// every fetched `UUID` goes through here, and a table lookup per digit
    /// cost as much as reading the rest of the row.
    static func parse(_ text: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard text.count == 36, let base = text.baseAddress else { return nil }
        let dash = UInt8(ascii: "-")
        guard base[8] == dash, base[13] == dash, base[18] == dash, base[23] == dash else { return nil }
        let raw = UnsafeRawPointer(base)
        func word(_ offset: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
        func half(_ offset: Int) -> UInt64 {
            UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        }
        // The four-character groups go two to a word.
        var valid = true
        let first = hexDigits(word(0), &valid)
        let secondAndThird = hexDigits(half(9) | half(14) << 32, &valid)
        let fourthAndSixth = hexDigits(half(19) | half(32) << 32, &valid)
        let fifth = hexDigits(word(24), &valid)
        guard valid else { return nil }
        // Each group's first character is its most significant digit.
        let high = first << 32 | secondAndThird
        let low = (fourthAndSixth >> 16) << 48 | fifth << 16 | fourthAndSixth & 0xFFFF
        // The 16 bytes in text order: each half big-endian.
        // unsafe(same-layout): two UInt64s and `uuid_t` are both 16 bytes,
        // 8-aligned at most, with no padding.
        return UUID(uuid: unsafeBitCast((high.bigEndian, low.bigEndian), to: uuid_t.self))
    }

    /// The value of eight hex digits (either case) held in `word`, the first
    /// character in the lowest byte; clears `valid` when any byte is not one.
    @inline(__always)
    private static func hexDigits(_ word: UInt64, _ valid: inout Bool) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits = ones &* 0x80
        /// The high bit of each byte of `bytes` that lies in `lower...upper`
        /// (for bytes below 0x80).
        func within(_ bytes: UInt64, _ lower: UInt8, _ upper: UInt8) -> UInt64 {
            let atLeastLower = bytes &+ ones &* UInt64(0x80 - lower)
            let aboveUpper = bytes &+ ones &* UInt64(0x7F - upper)
            return atLeastLower & ~aboveUpper & highBits
        }
        // Setting bit 5 folds 'A'…'F' onto 'a'…'f' and nothing else onto them.
        let digits = within(word, 0x30, 0x39) | within(word | ones &* 0x20, 0x61, 0x66)
        if word & highBits != 0 || digits != highBits { valid = false }
        // '0'…'9' keep their low nibble; letters (bit 6 set) add 9 to theirs.
        let nibbles = (word & (ones &* 0x0F)) &+ ((word >> 6) & ones) &* 9
        // The first character's nibble becomes the most significant.
        var value = nibbles.byteSwapped
        value = (value | value >> 4) & 0x00FF_00FF_00FF_00FF
        value = (value | value >> 8) & 0x0000_FFFF_0000_FFFF
        value = (value | value >> 16) & 0x0000_0000_FFFF_FFFF
        return value
    }
}

extension URL: AttributeValue {
    public static var attributeType: AttributeType { .url }

    public init(sqlValue: SQLValue) throws {
        guard case .text(let text) = sqlValue, let url = URL(string: text) else {
            throw decodingError(sqlValue, as: URL.self)
        }
        self = url
    }

    public func sqlValue() throws -> SQLValue { .text(absoluteString) }
}

extension Decimal: AttributeValue {
    public static var attributeType: AttributeType { .decimal }

    // Text keeps every digit; REAL would round.
    public init(sqlValue: SQLValue) throws {
        switch sqlValue {
        case .text(let text):
            guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw decodingError(sqlValue, as: Decimal.self)
            }
            self = value
        case .integer(let value): self = Decimal(value)
        case .real(let value): self = Decimal(value)
        default: throw decodingError(sqlValue, as: Decimal.self)
        }
    }

    public func sqlValue() throws -> SQLValue {
        guard !isNaN else { throw LiteRecordError(.validationFailed, "a NaN Decimal cannot be stored") }
        return .text(description)
    }
}

extension SQLValueConvertible {
    /// The value to bind where SQL only compares it (a predicate, a
    /// `find(byAttribute:)` value, a `fetch(sql:)` argument): as
    /// ``sqlValue()``, except that `-0.0` is bound too, sign kept. SQL
    /// compares it equal to `0.0`, as Swift does, and divides by it as Swift
    /// does (`1 / -0.0` is `-infinity`); only storing `-0.0` is refused.
    func comparisonValue() throws -> SQLValue {
        switch self {
        case let value as Double where value == 0: .real(value)
        case let value as Float where value == 0: .real(Double(value))
        default: try sqlValue()
        }
    }
}

extension Optional: SQLValueConvertible where Wrapped: SQLValueConvertible {
    public func sqlValue() throws -> SQLValue {
        switch self {
        case .none: .null
        case .some(let value): try value.sqlValue()
        }
    }
}
