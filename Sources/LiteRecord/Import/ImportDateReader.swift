import Foundation

/// Reads dates for one attribute in the way its ``ImportDateFormat`` says.
/// A custom format's `DateFormatter` is made once per import, not per value.
final class ImportDateReader {
    private let format: ImportDateFormat
    private var formatter: DateFormatter?

    init(_ format: ImportDateFormat) {
        self.format = format
    }

    func read(_ value: ImportValue) throws(CoercionFailure) -> SQLValue {
        let date: Date
        switch (format.kind, value) {
        case (.automatic, .string(let text)), (.iso8601, .string(let text)):
            guard let parsed = ISO8601Date.parse(text) else {
                throw CoercionFailure(reason: "\(value.shape) is not an ISO 8601 date")
            }
            date = parsed
        case (.automatic, _), (.unixSeconds, _):
            date = Date(timeIntervalSince1970: try Self.number(value))
        case (.unixMilliseconds, _):
            date = Date(timeIntervalSince1970: try Self.number(value) / 1000)
        case (.custom(let pattern, let zone), .string(let text)):
            let formatter = self.formatter ?? Self.makeFormatter(pattern, zone)
            self.formatter = formatter
            guard let parsed = formatter.date(from: text) else {
                throw CoercionFailure(reason: "\(value.shape) does not match the date format \"\(pattern)\"")
            }
            date = parsed
        case (.iso8601, _), (.custom, _):
            throw CoercionFailure(reason: "\(value.shape) is not a date string (\(format))")
        }
        let interval = date.timeIntervalSinceReferenceDate
        guard interval.isFinite else { throw CoercionFailure(reason: "\(value.shape) is not a finite date") }
        return .real(interval)
    }

    /// A number, or a numeric string in the import's one decimal grammar
    /// (``ImportNumber``), as the nearest `Double`.
    static func number(_ value: ImportValue) throws(CoercionFailure) -> Double {
        if case .double(let number) = value, number.isFinite { return number }
        if let whole = ImportCoercion.wholeDouble(value) { return whole }
        return try decimalNumber(value)
    }

    /// ``number(_:)`` by the decimal grammar alone: the plain path, which
    /// `ImportCoercion.wholeDouble(_:)` spares a whole number.
    static func decimalNumber(_ value: ImportValue) throws(CoercionFailure) -> Double {
        guard let exact = try ImportCoercion.exactNumber(value, "a Unix time") else {
            throw CoercionFailure(reason: "\(value.shape) is not a Unix time")
        }
        do {
            return try exact.double()
        } catch {
            throw CoercionFailure(reason: "\(value.shape) is not a Unix time a Date can hold")
        }
    }

    private static func makeFormatter(_ pattern: String, _ zone: TimeZone) -> DateFormatter {
        let formatter = DateFormatter()
        // The device's locale and calendar would change what the pattern
        // means (MagicalRecord #700, #964): en_US_POSIX is the fixed one.
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.timeZone = zone
        formatter.dateFormat = pattern
        formatter.isLenient = false
        return formatter
    }
}

/// A strict ISO 8601 reader for the forms JSON APIs send:
/// `YYYY-MM-DD`, then optionally `T` (or a space) `hh:mm`, `:ss`, a fraction
/// of any length, and a zone (`Z`, `±hh:mm`, `±hhmm`, `±hh`). No zone is UTC.
/// Written out rather than `ISO8601DateFormatter` so that one reader accepts
/// all of these, keeps every fractional digit a `Double` can hold, and
/// needs no formatter per thread.
enum ISO8601Date {
    static func parse(_ text: String) -> Date? {
        var bytes = Array(text.utf8)[...]
        guard let year = digits(&bytes, 4), take(&bytes, "-"), let month = digits(&bytes, 2), take(&bytes, "-"),
            let day = digits(&bytes, 2), (1...12).contains(month), (1...daysIn(month, year)).contains(day)
        else { return nil }
        var seconds = Double(daysFromCivil(year, month, day)) * 86_400
        if bytes.isEmpty { return Date(timeIntervalSince1970: seconds) }
        guard take(&bytes, "T") || take(&bytes, "t") || take(&bytes, " "),
            let hour = digits(&bytes, 2), take(&bytes, ":"), let minute = digits(&bytes, 2), hour < 24, minute < 60
        else { return nil }
        seconds += Double(hour * 3600 + minute * 60)
        if take(&bytes, ":") {
            // A leap second (`:60`) has no Date of its own (Unix time skips
            // it), so it is refused rather than moved to the next minute.
            guard let second = digits(&bytes, 2), second < 60 else { return nil }
            seconds += Double(second)
            if take(&bytes, ".") || take(&bytes, ",") {
                guard let fraction = fraction(&bytes) else { return nil }
                seconds += fraction
            }
        }
        if bytes.isEmpty || take(&bytes, "Z") || take(&bytes, "z") {
            return bytes.isEmpty ? Date(timeIntervalSince1970: seconds) : nil
        }
        guard let offset = zoneOffset(&bytes) else { return nil }
        seconds -= offset
        return Date(timeIntervalSince1970: seconds)
    }

    /// Reads the digits of a fraction of a second (after its `.` or `,`);
    /// `nil` when there are none.
    private static func fraction(_ bytes: inout ArraySlice<UInt8>) -> Double? {
        // Digits past the 15th are below a Double's resolution here.
        var numerator: Int64 = 0
        var denominator: Int64 = 1
        var count = 0
        while let digit = bytes.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) {
            if count < 15 {
                numerator = numerator * 10 + Int64(digit - UInt8(ascii: "0"))
                denominator *= 10
            }
            count += 1
            bytes.removeFirst()
        }
        guard count > 0 else { return nil }
        return Double(numerator) / Double(denominator)
    }

    /// Reads a numeric zone that ends the text (`±hh:mm`, `±hhmm`, `±hh`):
    /// its offset from UTC in seconds, or `nil` when the rest is not one.
    private static func zoneOffset(_ bytes: inout ArraySlice<UInt8>) -> Double? {
        let sign: Double
        if take(&bytes, "+") {
            sign = 1
        } else if take(&bytes, "-") {
            sign = -1
        } else {
            return nil
        }
        guard let zoneHours = digits(&bytes, 2), zoneHours < 24 else { return nil }
        var zoneMinutes = 0
        if !bytes.isEmpty {
            _ = take(&bytes, ":")
            guard let minutes = digits(&bytes, 2), minutes < 60, bytes.isEmpty else { return nil }
            zoneMinutes = minutes
        }
        return sign * Double(zoneHours * 3600 + zoneMinutes * 60)
    }

    private static func take(_ bytes: inout ArraySlice<UInt8>, _ character: Unicode.Scalar) -> Bool {
        guard bytes.first == UInt8(ascii: character) else { return false }
        bytes.removeFirst()
        return true
    }

    private static func digits(_ bytes: inout ArraySlice<UInt8>, _ count: Int) -> Int? {
        guard bytes.count >= count else { return nil }
        var value = 0
        for byte in bytes.prefix(count) {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        bytes.removeFirst(count)
        return value
    }

    private static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date
    /// (http://howardhinnant.github.io/date_algorithms.html#days_from_civil).
    private static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
