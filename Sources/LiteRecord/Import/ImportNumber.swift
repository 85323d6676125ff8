import Foundation

/// A number exactly as JSON (or a numeric string) wrote it: sign, significant
/// digits and a power of ten, with no limit on either. Every numeric
/// conversion of an import starts here, so each target type is derived from
/// the exact value and refused when it cannot hold it — never read through a
/// `Double` first.
///
/// The one grammar (``init(text:)``) is JSON's number, with a `+` sign and
/// leading zeros also allowed in strings: `[+-]?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
/// Hexadecimal, `inf`, `nan`, spaces, `.5`, `5.` and digit separators are
/// not numbers.
struct ImportNumber: Equatable {
    /// `true` for a negative number, and for `-0.0` (kept only so that a
    /// `Double` attribute can refuse it as it refuses the `Double` `-0.0`).
    let isNegative: Bool
    /// The significant digits (0...9), without leading or trailing zeros;
    /// empty for zero.
    let digits: [UInt8]
    /// value = digits × 10^exponent.
    let exponent: Int
    /// Written without a fraction or an exponent (`42`, `-7`): such a number
    /// must be held exactly by a `Double` or `Float` attribute, not rounded.
    let isIntegerNotation: Bool

    /// Exponents are read up to this size; past it any number overflows or
    /// underflows every type anyway, and the arithmetic cannot overflow.
    private static let exponentLimit = 1 << 40

    var isZero: Bool { digits.isEmpty }

    static func == (a: ImportNumber, b: ImportNumber) -> Bool {
        a.digits == b.digits && a.exponent == b.exponent && (a.isNegative == b.isNegative || a.isZero)
    }

    /// Parses `text` with the strict grammar; `nil` when it is not a number.
    init?(text: some StringProtocol) {
        var bytes = Array(text.utf8)[...]
        var negative = false
        if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            bytes.removeFirst()
        }
        guard let whole = Self.digitRun(&bytes) else { return nil }
        var fraction: ArraySlice<UInt8> = []
        if bytes.first == UInt8(ascii: ".") {
            bytes.removeFirst()
            guard let run = Self.digitRun(&bytes) else { return nil }
            fraction = run
        }
        var written = 0
        let hasExponent = bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E")
        if hasExponent {
            bytes.removeFirst()
            guard let value = Self.exponentValue(&bytes) else { return nil }
            written = value
        }
        guard bytes.isEmpty else { return nil }
        self.init(
            negative: negative, digits: Array(whole) + Array(fraction), exponent: written - fraction.count,
            isIntegerNotation: fraction.isEmpty && !hasExponent)
    }

    /// Normalizes `digits` (ASCII digits) × 10^exponent.
    private init(negative: Bool, digits ascii: [UInt8], exponent: Int, isIntegerNotation: Bool) {
        var digits = ascii.map { $0 - UInt8(ascii: "0") }
        var exponent = exponent
        let leading = digits.firstIndex { $0 != 0 } ?? digits.count
        digits.removeFirst(leading)
        while digits.last == 0 {
            digits.removeLast()
            exponent += 1
        }
        self.digits = digits
        self.exponent = digits.isEmpty ? 0 : exponent
        // "-0" written as an integer is the integer 0.
        isNegative = negative && !(digits.isEmpty && isIntegerNotation)
        self.isIntegerNotation = isIntegerNotation
    }

    /// A finite `Double` (or `Float` widened to one) as its shortest
    /// round-trip decimal text: the value it stands for.
    init?(double: Double) {
        guard double.isFinite else { return nil }
        self.init(text: double.description)
    }

    init(integer: Int64) {
        self.init(negative: integer < 0, digits: Array(String(integer.magnitude).utf8), exponent: 0, isIntegerNotation: true)
    }

    init(unsigned: UInt64) {
        self.init(negative: false, digits: Array(String(unsigned).utf8), exponent: 0, isIntegerNotation: true)
    }

    init?(decimal: Decimal) {
        guard !decimal.isNaN else { return nil }
        self.init(text: decimal.description)
    }

    private static func digitRun(_ bytes: inout ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let end = bytes.firstIndex { !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? bytes.endIndex
        guard end > bytes.startIndex else { return nil }
        let run = bytes[..<end]
        bytes = bytes[end...]
        return run
    }

    /// The exponent after its `e`: sign and digits, saturated at `exponentLimit`.
    private static func exponentValue(_ bytes: inout ArraySlice<UInt8>) -> Int? {
        var sign = 1
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            sign = first == UInt8(ascii: "-") ? -1 : 1
            bytes.removeFirst()
        }
        guard let run = digitRun(&bytes) else { return nil }
        var value = 0
        for digit in run {
            value = min(value * 10 + Int(digit - UInt8(ascii: "0")), exponentLimit)
        }
        return sign * value
    }
}

// MARK: The value in each type

extension ImportNumber {
    /// Why a number does not fit a type.
    enum Refusal: Error {
        case notWhole, outOfRange, tooSmall, tooManyDigits
    }

    /// The canonical decimal text: the same for equal values, different for
    /// different ones. Plain notation up to 40 digits (`7`, `-2.5`, `100`,
    /// `0.000123`, `0.30000000000000004`), else one digit, a fraction and an
    /// exponent (`1e400`, `1.5e-400`). Zero (`-0.0` included) is `0`.
    var text: String {
        guard !isZero else { return "0" }
        let sign = isNegative ? "-" : ""
        let written = String(decoding: digits.map { $0 + UInt8(ascii: "0") }, as: UTF8.self)
        let point = digits.count + exponent  // digits before the decimal point
        if exponent >= 0 && point <= 40 {
            return sign + written + String(repeating: "0", count: exponent)
        }
        if exponent < 0 && point > 0 {
            return sign + written.prefix(point) + "." + written.dropFirst(point)
        }
        if exponent < 0 && point > -20 {
            return sign + "0." + String(repeating: "0", count: -point) + written
        }
        let rest = written.dropFirst()
        return sign + written.prefix(1) + (rest.isEmpty ? "" : "." + rest) + "e\(point - 1)"
    }

    /// The value as an `Int64`, or why not.
    func int64() throws(Refusal) -> Int64 {
        guard !isZero else { return 0 }
        guard exponent >= 0 else { throw .notWhole }
        guard digits.count + exponent <= 19 else { throw .outOfRange }
        var magnitude: UInt64 = 0
        for digit in digits + [UInt8](repeating: 0, count: exponent) {
            let (times, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(digit))
            guard !overflow, !carry else { throw .outOfRange }
            magnitude = sum
        }
        if isNegative {
            guard magnitude <= UInt64(Int64.max) + 1 else { throw .outOfRange }
            return magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { throw .outOfRange }
        return Int64(magnitude)
    }

    /// The nearest `Double` (correctly rounded, as `Double("…")` parses),
    /// or exactly this value when it is written as an integer. Refused:
    /// values past `Double`'s range, non-zero values that would become 0,
    /// and integers it cannot hold exactly.
    func double() throws(Refusal) -> Double {
        guard let value = Double(text) else { throw .outOfRange }
        try check(Double(value), isFinite: value.isFinite)
        return value
    }

    /// As ``double()``, for `Float`: rounded once, from the decimal digits.
    func float() throws(Refusal) -> Float {
        guard let value = Float(text) else { throw .outOfRange }
        try check(Double(value), isFinite: value.isFinite)
        return value
    }

    private func check(_ value: Double, isFinite: Bool) throws(Refusal) {
        guard isFinite else { throw .outOfRange }
        if value == 0 && !isZero { throw .tooSmall }
        if isIntegerNotation && ImportNumber(double: value) != self { throw .tooManyDigits }
    }

    /// This exact value as a `Decimal`: at most 38 significant digits, in
    /// `Decimal`'s exponent range.
    func decimal() throws(Refusal) -> Decimal {
        guard !isZero else { return 0 }
        guard digits.count <= 38 else { throw .tooManyDigits }
        guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")),
            ImportNumber(decimal: decimal) == self
        else { throw .outOfRange }
        return decimal
    }
}
