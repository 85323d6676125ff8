import Foundation

/// A JSON value as an import sees it, whatever produced it: `JSONSerialization`
/// (which hands out `NSNumber`s) or a dictionary literal (which holds Swift
/// values).
enum ImportValue {
    case null
    case bool(Bool)
    case integer(Int64)
    /// An unsigned integer above `Int64.max`.
    case unsigned(UInt64)
    case double(Double)
    /// A number no `Int64`, `UInt64` or `Double` holds exactly: an
    /// `NSDecimalNumber`, a `Decimal`, or a number of JSON text read by
    /// ``ImportJSONReader``.
    case exact(ImportNumber)
    case string(String)
    case object([String: Any])
    case array([Any])
    /// Anything else (a `Date`, a custom type in a hand-made dictionary).
    case other(Any)

    init(_ value: Any) {
        // Exact type checks first: casting a Swift dictionary or array held
        // in an `Any` to a class (`NSNumber`) bridges all of it to Foundation
        // objects before failing, which cost more than the rest of an import.
        let kind = type(of: value)
        if kind == String.self, let text = value as? String {
            self = .string(text)
        } else if kind == [String: Any].self, let object = value as? [String: Any] {
            self = .object(object)
        } else if kind == [Any].self, let array = value as? [Any] {
            self = .array(array)
        } else if kind is AnyClass {
            // What JSONSerialization hands out, and Foundation objects.
            switch value {
            case let number as NSNumber: self = ImportValue(number: number)
            case is NSNull: self = .null
            case let text as String: self = .string(text)
            case let object as [String: Any]: self = .object(object)
            case let array as [Any]: self = .array(array)
            default: self = .other(value)
            }
        } else {
            self = ImportValue(swiftValue: value)
        }
    }

    /// Swift values, as dictionary literals hold them.
    private init(swiftValue value: Any) {
        switch value {
        case let flag as Bool: self = .bool(flag)
        case let number as Int: self = .integer(Int64(number))
        case let number as Double: self = .double(number)
        case let number as Int64: self = .integer(number)
        case let number as Int32: self = .integer(Int64(number))
        case let number as Int16: self = .integer(Int64(number))
        case let number as Int8: self = .integer(Int64(number))
        case let number as UInt:
            self = number <= UInt(Int64.max) ? .integer(Int64(number)) : .unsigned(UInt64(number))
        case let number as UInt64: self = number <= UInt64(Int64.max) ? .integer(Int64(number)) : .unsigned(number)
        case let number as UInt32: self = .integer(Int64(number))
        case let number as UInt16: self = .integer(Int64(number))
        case let number as UInt8: self = .integer(Int64(number))
        case let number as Float: self = .double(Double(number))
        case let number as Decimal: self = ImportNumber(decimal: number).map(ImportValue.exact) ?? .double(.nan)
        case let text as Substring: self = .string(String(text))
        case let optional as any OptionalProtocol: self = optional.importValue
        // Literals of one element type: `[String: Int]`, `[Int]`.
        case let object as [String: Any]: self = .object(object)
        case let array as [Any]: self = .array(array)
        default: self = .other(value)
        }
    }

    /// `JSONSerialization`'s numbers: booleans, integers and doubles all
    /// arrive as `NSNumber`; its type encoding tells them apart.
    private init(number: NSNumber) {
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "c"), UInt8(ascii: "B"):
            // `c` is also Int8's encoding; JSON has no Int8, so it is a boolean
            // unless its value says otherwise.
            let value = number.int64Value
            self = value == 0 || value == 1 ? .bool(value == 1) : .integer(value)
        case UInt8(ascii: "d"), UInt8(ascii: "f"):
            // An NSDecimalNumber (what JSONSerialization gives for a number
            // of more than 17 characters) holds digits a Double would lose.
            if let decimal = number as? NSDecimalNumber {
                self = ImportNumber(decimal: decimal.decimalValue).map(ImportValue.exact) ?? .double(.nan)
            } else {
                self = .double(number.doubleValue)
            }
        case UInt8(ascii: "Q"), UInt8(ascii: "L"), UInt8(ascii: "I"), UInt8(ascii: "S"), UInt8(ascii: "C"):
            let value = number.uint64Value
            self = value <= UInt64(Int64.max) ? .integer(Int64(value)) : .unsigned(value)
        default:
            self = .integer(number.int64Value)
        }
    }

    /// The value's shape in words, for error messages; the value itself only
    /// when the importing stack's setting (``RecordStack/includesValuesInDescriptions``,
    /// else the process-wide switch) says so.
    var shape: String {
        let shown = ErrorSettings.showsValues
        switch self {
        case .null: return "null"
        case .bool(let value): return shown ? "the boolean \(value)" : "a boolean"
        case .integer(let value): return shown ? "the number \(value)" : "a number"
        case .unsigned(let value): return shown ? "the number \(value)" : "a number"
        case .double(let value): return shown ? "the number \(value)" : "a number"
        case .exact(let value): return shown ? "the number \(value.text)" : "a number"
        case .string(let value): return shown ? "the string \"\(value)\"" : "a string"
        case .object: return "an object"
        case .array: return "an array"
        case .other(let value): return "a \(type(of: value)) value"
        }
    }
}

/// Lets ``ImportValue`` see through an `Optional` stored in an `Any`.
private protocol OptionalProtocol {
    var importValue: ImportValue { get }
}

extension Optional: OptionalProtocol {
    fileprivate var importValue: ImportValue {
        switch self {
        case .none: .null
        case .some(let wrapped): ImportValue(wrapped)
        }
    }
}

/// Why a value cannot become an attribute's stored form; the importer adds
/// the entity, element index and key path.
struct CoercionFailure: Error {
    let reason: String
}

/// Turns JSON values into the stored form (``SQLValue``) of an attribute's
/// type: exact or refused, never rounded or truncated.
enum ImportCoercion {
    static func coerce(
        _ value: ImportValue, to type: AttributeType, dateReader: ImportDateReader
    ) throws(CoercionFailure) -> SQLValue {
        if case .null = value { return .null }
        switch type {
        case .bool: return try bool(value)
        case .int, .int64: return try integer(value, in: Int64.min...Int64.max, type)
        case .int8: return try integer(value, in: Int64(Int8.min)...Int64(Int8.max), type)
        case .int16: return try integer(value, in: Int64(Int16.min)...Int64(Int16.max), type)
        case .int32: return try integer(value, in: Int64(Int32.min)...Int64(Int32.max), type)
        case .uint, .uint64: return try integer(value, in: 0...Int64.max, type)
        case .uint8: return try integer(value, in: 0...Int64(UInt8.max), type)
        case .uint16: return try integer(value, in: 0...Int64(UInt16.max), type)
        case .uint32: return try integer(value, in: 0...Int64(UInt32.max), type)
        case .double: return try real(value, float: false)
        case .float: return try real(value, float: true)
        case .string: return try string(value)
        case .date: return try dateReader.read(value)
        case .uuid:
            guard case .string(let text) = value, let uuid = UUID(uuidString: text) else {
                throw CoercionFailure(reason: "\(value.shape) is not a UUID")
            }
            return .text(UUIDText.format(uuid))
        case .url:
            guard case .string(let text) = value, let url = URL(string: text) else {
                throw CoercionFailure(reason: "\(value.shape) is not a URL")
            }
            return .text(url.absoluteString)
        case .decimal: return try decimal(value)
        case .data:
            guard case .string(let text) = value, let data = Data(base64Encoded: text) else {
                throw CoercionFailure(reason: "\(value.shape) is not base64 text, which is how JSON carries Data")
            }
            return .blob(data)
        case .json: return try json(value)
        default:
            throw CoercionFailure(reason: "the attribute type \(type) cannot be imported")
        }
    }

    /// `true`/`false`, `1`/`0` as numbers, and `"true"`/`"false"`,
    /// `"yes"`/`"no"`, `"1"`/`"0"` in any case.
    static func bool(_ value: ImportValue) throws(CoercionFailure) -> SQLValue {
        switch value {
        case .bool(let flag): return .integer(flag ? 1 : 0)
        case .integer(let number) where number == 0 || number == 1: return .integer(number)
        case .double(let number) where number == 0 || number == 1: return .integer(number == 1 ? 1 : 0)
        case .exact(let number) where number.isZero || number == ImportNumber(integer: 1): return .integer(number.isZero ? 0 : 1)
        case .string(let text):
            switch text.lowercased() {
            case "true", "yes", "1": return .integer(1)
            case "false", "no", "0": return .integer(0)
            default: break
            }
        default: break
        }
        throw CoercionFailure(reason: "\(value.shape) is not a boolean (true/false, 1/0, \"yes\"/\"no\")")
    }

    /// The exact number `value` stands for (``ImportNumber``), `nil` when it
    /// is no number at all (a boolean, an object…). Refused: NaN and the
    /// infinities, and strings outside the one decimal grammar.
    ///
    /// `noun` says what the attribute wants, for messages: "an integer".
    static func exactNumber(_ value: ImportValue, _ noun: String) throws(CoercionFailure) -> ImportNumber? {
        switch value {
        case .integer(let number): return ImportNumber(integer: number)
        case .unsigned(let number): return ImportNumber(unsigned: number)
        case .exact(let number): return number
        case .double(let number):
            guard let exact = ImportNumber(double: number) else {
                throw CoercionFailure(reason: "\(value.shape) is \(number.isNaN ? "NaN" : "infinite"), not \(noun)")
            }
            return exact
        case .string(let text):
            guard let exact = ImportNumber(text: text) else {
                throw CoercionFailure(
                    reason: "\(value.shape) is not \(noun) in decimal notation (digits, optionally a '.' fraction and an 'e' exponent)")
            }
            return exact
        default: return nil
        }
    }

    private static func failure(_ refusal: ImportNumber.Refusal, _ value: ImportValue, _ type: String) -> CoercionFailure {
        switch refusal {
        case .notWhole: CoercionFailure(reason: "\(value.shape) is not a whole number, so \(type) would truncate it")
        case .outOfRange: CoercionFailure(reason: "\(value.shape) is out of the range of \(type)")
        case .tooSmall: CoercionFailure(reason: "\(value.shape) is too small for \(type), which would make it 0")
        case .tooManyDigits: CoercionFailure(reason: "\(value.shape) has more digits than \(type) keeps")
        }
    }

    static func integer(
        _ value: ImportValue, in range: ClosedRange<Int64>, _ type: AttributeType
    ) throws(CoercionFailure) -> SQLValue {
        let number: Int64
        if case .integer(let integer) = value {
            number = integer
        } else {
            guard let exact = try exactNumber(value, "an integer") else {
                throw CoercionFailure(reason: "\(value.shape) is not an integer")
            }
            do {
                number = try exact.int64()
            } catch {
                throw failure(error, value, "\(type)")
            }
        }
        guard range.contains(number) else {
            throw CoercionFailure(reason: "\(value.shape) is out of the range of \(type) (\(range.lowerBound)...\(range.upperBound))")
        }
        return .integer(number)
    }

    /// A `Double` gets a `Double` as it is; a decimal number its nearest
    /// `Double` (or `Float`), rounded once from the digits; a number written
    /// as an integer only when held exactly.
    static func real(_ value: ImportValue, float: Bool) throws(CoercionFailure) -> SQLValue {
        let type = float ? "Float" : "Double"
        var number: Double
        if case .double(let double) = value, !float, double.isFinite {
            number = double
        } else if !float, let whole = wholeDouble(value) {
            number = whole
        } else {
            guard let exact = try exactNumber(value, "a number") else { throw CoercionFailure(reason: "\(value.shape) is not a number") }
            do {
                number = float ? Double(try exact.float()) : try exact.double()
            } catch {
                throw failure(error, value, type)
            }
            if exact.isZero && exact.isNegative { number = -0.0 }
        }
        if number == 0 && number.sign == .minus {
            throw CoercionFailure(reason: "-0.0 cannot be stored: SQLite would return +0.0; send 0")
        }
        return .real(number)
    }

    /// A whole number's `Double`, for a number of at most 2⁵³ in magnitude
    /// (every one of which a `Double` holds exactly, and whose shortest
    /// decimal form is the number itself): what the decimal path
    /// (``ImportNumber/double()``) gives it, without writing its digits out
    /// and reading them back. `nil` for any other value, which takes the
    /// decimal path (it refuses some larger whole numbers a `Double` holds,
    /// such as 2⁶²: their shortest decimal form has other digits).
    static func wholeDouble(_ value: ImportValue) -> Double? {
        guard case .integer(let integer) = value, integer.magnitude <= 1 << 53 else { return nil }
        return Double(integer)
    }

    /// Text as it is; a number as its canonical decimal text
    /// (``ImportNumber/text``): `7`, `2.5`, `100` for `1e2`, `1e400`.
    static func string(_ value: ImportValue) throws(CoercionFailure) -> SQLValue {
        switch value {
        case .string(let text): return .text(text)
        case .integer(let number): return .text(String(number))
        default:
            guard let exact = try exactNumber(value, "text or a number") else { throw CoercionFailure(reason: "\(value.shape) is not text") }
            return .text(exact.text)
        }
    }

    /// The number's exact digits (`0.1` is `0.1`), at most 38 of them.
    static func decimal(_ value: ImportValue) throws(CoercionFailure) -> SQLValue {
        guard let exact = try exactNumber(value, "a decimal number") else {
            throw CoercionFailure(reason: "\(value.shape) is not a decimal number")
        }
        do {
            return .text(try exact.decimal().description)
        } catch {
            throw failure(error, value, "Decimal")
        }
    }

    /// Whether `value` holds objects or arrays more than `limit` levels
    /// deep, found with a work list rather than by recursion.
    static func nests(_ value: Any, deeperThan limit: Int) -> Bool {
        var pending: [(value: Any, depth: Int)] = [(value, 0)]
        while let (next, depth) = pending.popLast() {
            let children: [Any]
            switch ImportValue(next) {
            case .object(let object): children = Array(object.values)
            case .array(let array): children = array
            default: continue
            }
            guard depth < limit else { return true }
            for child in children { pending.append((child, depth + 1)) }
        }
        return false
    }

    /// A `Codable` attribute: the JSON value as JSON text, which the entity
    /// then decodes (and so checks) as the property's type.
    static func json(_ value: ImportValue) throws(CoercionFailure) -> SQLValue {
        let object: Any
        switch value {
        case .object(let dictionary): object = dictionary
        case .array(let array): object = array
        case .string(let text): object = text
        case .bool(let flag): object = flag
        case .integer(let number): object = number
        case .unsigned(let number): object = number
        case .double(let number): object = number
        case .exact(let number):
            // A Codable property decodes numbers into its own types: the
            // nearest Double is what JSONDecoder would give it.
            guard let double = Double(number.text), double.isFinite else {
                throw CoercionFailure(reason: "\(value.shape) is out of the range of a JSON number")
            }
            object = double
        case .null: return .null
        case .other: throw CoercionFailure(reason: "\(value.shape) is not a JSON value")
        }
        // JSONSerialization and the decoder read nesting by recursion.
        guard !nests(object, deeperThan: ImportJSONReader.maximumDepth) else {
            throw CoercionFailure(reason: "\(value.shape) nests more than \(ImportJSONReader.maximumDepth) levels deep")
        }
        // JSONSerialization traps on values it cannot write: check first.
        guard JSONSerialization.isValidJSONObject([object]) else {
            throw CoercionFailure(reason: "\(value.shape) holds values that are not JSON")
        }
        do {
            let data = try JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
            return .text(String(decoding: data, as: UTF8.self))
        } catch {
            throw CoercionFailure(reason: "\(value.shape) cannot be written as JSON: \(error)")
        }
    }
}
