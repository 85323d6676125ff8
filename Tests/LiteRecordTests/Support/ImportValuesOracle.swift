import Foundation
import LiteRecord

/// What an imported number must become, worked out independently of the
/// import's own number code: a decimal value as sign, digits and exponent,
/// compared by value; Swift's own parsers for the nearest `Double` and
/// `Float`; `Decimal(string:)` only where it is exact.
enum Oracle {
    struct Value: Equatable, CustomStringConvertible {
        var negative: Bool
        var digits: String
        var exponent: Int
        var integerNotation: Bool
        var isZero: Bool { digits.isEmpty }
        var description: String { "\(negative ? "-" : "")\(digits.isEmpty ? "0" : digits)e\(exponent)" }

        static func == (a: Value, b: Value) -> Bool {
            a.digits == b.digits && a.exponent == b.exponent && (a.negative == b.negative || a.isZero)
        }
    }

    /// `text` read as `[+-]?digits(.digits)?([eE][+-]?digits)?`; `nil` otherwise.
    static func value(_ text: String) -> Value? {
        func isDigits(_ part: Substring) -> Bool { !part.isEmpty && part.allSatisfy { ("0"..."9").contains($0) } }
        var rest = Substring(text)
        var negative = false
        if let sign = rest.first, sign == "-" || sign == "+" { (negative, rest) = (sign == "-", rest.dropFirst()) }
        var exponent = 0
        var hasExponent = false
        if let e = rest.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            var written = rest[rest.index(after: e)...]
            var sign = 1
            if let first = written.first, first == "-" || first == "+" { (sign, written) = (first == "-" ? -1 : 1, written.dropFirst()) }
            guard isDigits(written) else { return nil }
            let trimmed = written.drop { $0 == "0" }
            exponent = sign * (trimmed.count > 15 ? 1_000_000_000_000_000 : Int(trimmed) ?? 0)
            (rest, hasExponent) = (rest[..<e], true)
        }
        let parts = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, parts.allSatisfy(isDigits) else { return nil }
        var digits = String(parts[0]) + (parts.count == 2 ? String(parts[1]) : "")
        exponent -= parts.count == 2 ? parts[1].count : 0
        digits = String(digits.drop { $0 == "0" })
        while digits.last == "0" { (digits, exponent) = (String(digits.dropLast()), exponent + 1) }
        let integerNotation = parts.count == 1 && !hasExponent
        if digits.isEmpty { return Value(negative: negative && !integerNotation, digits: "", exponent: 0, integerNotation: integerNotation) }
        return Value(negative: negative, digits: digits, exponent: exponent, integerNotation: integerNotation)
    }

    /// The text an input stands for; `nil` for NaN and the infinities.
    static func text(_ input: ImportValuesPropertyTests.Input) -> String? {
        switch input {
        case .jsonNumber(let text), .jsonString(let text): text
        case .swiftDouble(let value): value.isFinite ? value.description : nil
        }
    }

    /// The value as an `Int64`, when it is a whole number in range.
    static func integer(_ value: Value) -> Int64? {
        if value.isZero { return 0 }
        guard value.exponent >= 0, value.digits.count + value.exponent <= 20 else { return nil }
        return Int64((value.negative ? "-" : "") + value.digits + String(repeating: "0", count: value.exponent))
    }

    /// The `Double` an import must store, or `nil` when it must refuse.
    static func double(_ text: String, _ value: Value, _ input: ImportValuesPropertyTests.Input) -> Double? {
        if case .swiftDouble(let double) = input { return double == 0 && double.sign == .minus ? nil : double }
        if value.isZero { return value.negative ? nil : 0 }
        guard let double = Double(text), double.isFinite, double != 0 else { return nil }
        if value.integerNotation, Oracle.value(double.description) != value { return nil }
        return double
    }

    static func float(_ text: String, _ value: Value) -> Float? {
        if value.isZero { return value.negative ? nil : 0 }
        guard let float = Float(text), float.isFinite, float != 0 else { return nil }
        if value.integerNotation, Oracle.value(Double(float).description) != value { return nil }
        return float
    }

    static func decimal(_ text: String, _ value: Value) -> Decimal? {
        guard value.digits.count <= 38, abs(value.exponent) < 300 else { return nil }
        guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !decimal.isNaN,
            Oracle.value(decimal.description) == value
        else { return nil }
        return decimal
    }
}

extension Oracle {
    /// How the stored value differs from what the input says; `nil` when it is exact.
    static func change(_ input: ImportValuesPropertyTests.Input, _ key: String, _ read: IValues) -> String? {
        let stored = storedText(key, read)
        guard let text = text(input) else { return "NaN or an infinity stored as \(stored)" }
        if key == "string", case .jsonString = input { return read.string == text ? nil : "stored \(read.string)" }
        if key == "bool" {
            if case .jsonString = input, ["true", "yes", "1", "false", "no", "0"].contains(text.lowercased()) {
                return read.bool == ["true", "yes", "1"].contains(text.lowercased()) ? nil : "stored \(read.bool)"
            }
            guard let value = value(text), value == Oracle.value("1")! || value.isZero else { return "stored \(read.bool)" }
            return read.bool == !value.isZero ? nil : "stored \(read.bool)"
        }
        guard let value = value(text) else { return "text that is no number stored as \(stored)" }
        switch key {
        case "double":
            return double(text, value, input)?.bitPattern == read.double.bitPattern ? nil : "stored \(read.double)"
        case "float":
            let expected: Float? = if case .swiftDouble = input { float(text, value) } else { float(text, value) }
            return expected?.bitPattern == read.float.bitPattern ? nil : "stored \(read.float)"
        case "decimal": return Oracle.value(read.decimal.description) == value ? nil : "stored \(read.decimal)"
        case "string": return Oracle.value(read.string) == value ? nil : "stored \(read.string)"
        default: return Oracle.value(stored) == value ? nil : "stored \(stored)"
        }
    }

    /// Why an input should have been stored; `nil` when refusing it is right.
    static func wronglyRefused(_ input: ImportValuesPropertyTests.Input, _ key: String) -> String? {
        guard let text = text(input) else { return nil }
        if key == "string" { return "text and finite numbers are always text" }
        guard key != "bool", let value = value(text) else { return nil }
        let fits: Bool
        switch key {
        case "double": fits = double(text, value, input) != nil
        case "float": fits = float(text, value) != nil
        case "decimal": fits = decimal(text, value) != nil
        default:
            let range = ImportValuesPropertyTests.integers.first { $0.key == key }?.range
            fits = integer(value).map { range?.contains($0) == true } ?? false
        }
        return fits ? "it fits \(key) exactly" : nil
    }

    static func storedText(_ key: String, _ read: IValues) -> String {
        switch key {
        case "int": "\(read.int)"
        case "int8": "\(read.int8)"
        case "int16": "\(read.int16)"
        case "int32": "\(read.int32)"
        case "int64": "\(read.int64)"
        case "uint": "\(read.uint)"
        case "uint8": "\(read.uint8)"
        case "uint16": "\(read.uint16)"
        case "uint32": "\(read.uint32)"
        case "uint64": "\(read.uint64)"
        case "double": "\(read.double)"
        case "float": "\(read.float)"
        case "decimal": "\(read.decimal)"
        case "bool": "\(read.bool)"
        default: read.string
        }
    }
}
