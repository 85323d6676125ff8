import Foundation

/// The collations and SQL functions that let SQLite compute what Swift would:
/// installed on every connection a store opens.
///
/// Where Swift's semantics are subtle (String equality is canonical
/// equivalence, `contains` works on `Character`s, integer arithmetic traps),
/// the functions call the very Swift code `Predicate.evaluate` runs instead of
/// approximating it in SQL. ASCII fast paths are used only where they are
/// provably identical.
enum SQLFunctions {
    /// Compares text as equal exactly when Swift's `String` `==` does
    /// (Unicode canonical equivalence: `"é" == "e\u{301}"`, `"K" ==
    /// "\u{212A}"`), for the `=`, `IS` and `IN` of a predicate: the same
    /// consistent order as ``swiftOrderCollation``, since SQLite builds and
    /// searches indexes with it (an `IN` list of more than two values becomes
    /// one), which only a consistent order makes sound. (Ordering comparisons
    /// use ``stringLess``.)
    static let swiftCollation = "literecord_swift"
    /// Orders text by its NFC-normalized Unicode scalars: the order Swift's
    /// `String` `<` defines, as a total order. Swift's `<` itself is not one
    /// when a string that is not in NFC is canonically equivalent to a proper
    /// prefix of the other (`"\u{212A}"` vs `"K68"` compare neither less nor
    /// greater), and no sort can reproduce an inconsistent comparator, so
    /// `ORDER BY` uses this consistent equivalent; the two agree on every pair
    /// Swift orders consistently, and both treat canonically equivalent
    /// strings as equal.
    static let swiftOrderCollation = "literecord_swift_order"
    /// Orders text like `String.StandardComparator.lexical`.
    static let lexicalCollation = "literecord_lexical"

    /// 1 when Swift's `String` `<` says the first text is less, else 0.
    static let stringLess = "literecord_less"
    static let contains = "literecord_contains"
    static let startsWith = "literecord_starts_with"
    static let characterCount = "literecord_count"
    /// The String a JSON string literal (`"a\u0000b"`) decodes to, as Swift's
    /// JSONDecoder reads it; for the elements SQLite's JSON functions would
    /// cut at an escaped NUL.
    static let jsonString = "literecord_json_string"
    static let checkInteger = "literecord_check_integer"
    static let checkReal = "literecord_check_real"
    static let integerDivide = "literecord_divide"
    static let integerRemainder = "literecord_remainder"
    static let realDivide = "literecord_real_divide"
    /// `literecord_fail(message)`: fails the statement with the message,
    /// for a row on which Swift's evaluation would trap.
    static let fail = "literecord_fail"
    #if canImport(Darwin)
    static let localizedStandardCollation = "literecord_localized_standard"
    static let localizedCollation = "literecord_localized"
    static let localizedStandardContains = "literecord_localized_standard_contains"
    static let caseInsensitiveCompare = "literecord_case_insensitive_compare"
    static let localizedCompare = "literecord_localized_compare"
    #endif

    /// The collation that orders like a `SortDescriptor`'s string comparator,
    /// if there is one.
    static func collation(for comparator: String.StandardComparator) -> String? {
        var forward = comparator
        forward.order = .forward
        if forward == String.StandardComparator.lexical { return lexicalCollation }
        #if canImport(Darwin)
        if forward == String.StandardComparator.localizedStandard { return localizedStandardCollation }
        if forward == String.StandardComparator.localized { return localizedCollation }
        #endif
        return nil
    }

    /// Installs every collation and function on `connection`, family by family.
    static func install(on connection: Connection) throws {
        try installStringOrders(on: connection)
        try installStringFunctions(on: connection)
        try SwiftComparison.install(on: connection)
        try installArithmetic(on: connection)
        try installTextMatching(on: connection)
        #if canImport(Darwin)
        try installLocalized(on: connection)
        #endif
    }

    /// The collations and the function that compare text as Swift's `String`
    /// does: equality, `<`, and ``lexicalCollation``.
    private static func installStringOrders(on connection: Connection) throws {
        // Both orders agree with byte order on ASCII text: the C fast path
        // handles that, the closures see only other text (and keep their own
        // ASCII check for direct callers).
        for name in [swiftCollation, swiftOrderCollation] {
            try connection.createCollation(name, asciiFastPath: true) { left, right in
                UTF8Text.canonicalOrder(left, right)
            }
        }
        try connection.createCollation(lexicalCollation) { left, right in
            UTF8Text.sign(String.StandardComparator.lexical.compare(UTF8Text.string(left), UTF8Text.string(right)))
        }
        try connection.createFunction(stringLess, argumentCount: 2) { arguments throws(FunctionError) in
            if arguments.isNull(0) || arguments.isNull(1) { return .null }
            let less = arguments.withUTF8(0) { left in
                arguments.withUTF8(1) { right in
                    if let result = UTF8Text.asciiCompare(left, right) { return result < 0 }
                    return UTF8Text.string(left) < UTF8Text.string(right)
                }
            }
            return .integer(less ? 1 : 0)
        }
    }

    /// The functions that read text as Swift does: `contains`, `hasPrefix`,
    /// `count`, and JSON string elements.
    private static func installStringFunctions(on connection: Connection) throws {
        try connection.createFunction(contains, argumentCount: 2) { arguments throws(FunctionError) in
            try UTF8Text.search(arguments) { text, other in
                // The expression Predicate.evaluate runs: Character-wise search.
                (try? PredicateExpressions.CollectionContainsCollection(
                    base: PredicateExpressions.Value(text), other: PredicateExpressions.Value(other)
                ).evaluate(PredicateBindings())) ?? false
            } ascii: { text, other in
                UTF8Text.asciiContains(text, other)
            }
        }
        try connection.createFunction(startsWith, argumentCount: 2) { arguments throws(FunctionError) in
            try UTF8Text.search(arguments) { text, prefix in
                (try? PredicateExpressions.SequenceStartsWith(
                    base: PredicateExpressions.Value(text), prefix: PredicateExpressions.Value(prefix)
                ).evaluate(PredicateBindings())) ?? false
            } ascii: { text, prefix in
                prefix.count <= text.count && UTF8Text.equal(UnsafeRawBufferPointer(rebasing: text.prefix(prefix.count)), prefix)
            }
        }
        try connection.createFunction(characterCount, argumentCount: 1) { arguments throws(FunctionError) in
            if arguments.isNull(0) { return .null }
            let count = arguments.withUTF8(0) { bytes in
                UTF8Text.isPlainASCII(bytes) ? bytes.count : UTF8Text.string(bytes).count
            }
            return .integer(Int64(count))
        }
        try connection.createFunction(jsonString, argumentCount: 1) { arguments throws(FunctionError) in
            if arguments.isNull(0) { return .null }
            let decoded = arguments.withUTF8(0) { bytes in
                try? JSONDecoder().decode(String.self, from: Data(bytes))
            }
            guard let decoded else {
                throw FunctionError("a stored JSON collection holds an element that is not a JSON string")
            }
            return .text(decoded)
        }
    }

    private static func installArithmetic(on connection: Connection) throws {
        // (value, min, max): the value of an integer operation, checked against
        // the Swift type's range. SQLite turns an Int64 overflow into REAL and a
        // division by zero into NULL; both are failures here.
        try connection.createFunction(checkInteger, argumentCount: 3) { arguments throws(FunctionError) in
            guard arguments.isInteger(0) else { throw overflow(arguments) }
            let value = arguments.int64(0)
            guard value >= arguments.int64(1), value <= arguments.int64(2) else {
                throw FunctionError("integer overflow in a predicate (Swift would trap)")
            }
            return .integer(value)
        }
        try connection.createFunction(checkReal, argumentCount: 1) { arguments throws(FunctionError) in
            guard !arguments.isNull(0) else {
                throw FunctionError("floating-point arithmetic in a predicate produced NaN, which SQL cannot represent")
            }
            return .real(arguments.double(0))
        }
        try connection.createFunction(integerDivide, argumentCount: 4) { arguments throws(FunctionError) in
            let (a, b) = try integerOperands(arguments)
            let (quotient, overflow) = a.dividedReportingOverflow(by: b)
            return try checked(quotient, overflow: overflow, arguments)
        }
        try connection.createFunction(integerRemainder, argumentCount: 4) { arguments throws(FunctionError) in
            let (a, b) = try integerOperands(arguments)
            // Swift traps on `min % -1` for every signed width, not only Int64.
            if b == -1 && a == arguments.int64(2) {
                throw FunctionError("integer overflow in a predicate (Swift would trap)")
            }
            let (remainder, overflow) = a.remainderReportingOverflow(dividingBy: b)
            return try checked(remainder, overflow: overflow, arguments)
        }
        // Not deterministic: with its constant message it would otherwise be
        // evaluated once before the first row, failing statements that never
        // reach it.
        try connection.createFunction(fail, argumentCount: 1, deterministic: false) { arguments throws(FunctionError) in
            throw FunctionError(arguments.string(0))
        }
        try connection.createFunction(realDivide, argumentCount: 2) { arguments throws(FunctionError) in
            let quotient = arguments.double(0) / arguments.double(1)
            guard !quotient.isNaN else {
                throw FunctionError("floating-point division in a predicate produced NaN, which SQL cannot represent")
            }
            return .real(quotient)
        }
    }

    /// The error for an integer result SQLite could not hold in 64 signed
    /// bits (argument 0 is then REAL). For a 64-bit unsigned type (bounds
    /// 0 and Int64.max in arguments 1 and 2) a result from 2^63 up to
    /// UInt64.max is one Swift computes: refused, but not as a trap.
    private static func overflow(_ arguments: FunctionArguments) -> FunctionError {
        let result = arguments.double(0)
        if arguments.int64(1) == 0, arguments.int64(2) == Int64.max, result > 0, result < 18_446_744_073_709_551_616.0 {
            return FunctionError(
                "an unsigned result above \(Int64.max) cannot be computed in a predicate: SQL integers are signed 64-bit (Swift would not trap; compare the operands instead)")
        }
        return FunctionError("integer overflow in a predicate (Swift would trap)")
    }

    private static func integerOperands(_ arguments: FunctionArguments) throws(FunctionError) -> (Int64, Int64) {
        guard arguments.isInteger(0), arguments.isInteger(1) else {
            throw FunctionError("integer overflow in a predicate (Swift would trap)")
        }
        let divisor = arguments.int64(1)
        guard divisor != 0 else { throw FunctionError("division by zero in a predicate (Swift would trap)") }
        return (arguments.int64(0), divisor)
    }

    private static func checked(_ value: Int64, overflow: Bool, _ arguments: FunctionArguments) throws(FunctionError) -> SQLValue {
        guard !overflow, value >= arguments.int64(2), value <= arguments.int64(3) else {
            throw FunctionError("integer overflow in a predicate (Swift would trap)")
        }
        return .integer(value)
    }

    #if canImport(Darwin)
    private static func installLocalized(on connection: Connection) throws {
        try connection.createCollation(localizedStandardCollation) { left, right in
            UTF8Text.sign(String.StandardComparator.localizedStandard.compare(UTF8Text.string(left), UTF8Text.string(right)))
        }
        try connection.createCollation(localizedCollation) { left, right in
            UTF8Text.sign(String.StandardComparator.localized.compare(UTF8Text.string(left), UTF8Text.string(right)))
        }
        try connection.createFunction(localizedStandardContains, argumentCount: 2) { arguments throws(FunctionError) in
            if arguments.isNull(0) || arguments.isNull(1) { return .null }
            // text-audit: Darwin only, Apple's Foundation (not the Linux search that traps on NUL).
            return .integer(arguments.string(0).localizedStandardContains(arguments.string(1)) ? 1 : 0)
        }
        try connection.createFunction(caseInsensitiveCompare, argumentCount: 2) { arguments throws(FunctionError) in
            if arguments.isNull(0) || arguments.isNull(1) { return .null }
            // text-audit: Darwin only, Apple's Foundation (not the Linux search that traps on NUL).
            return .integer(Int64(arguments.string(0).caseInsensitiveCompare(arguments.string(1)).rawValue))
        }
        try connection.createFunction(localizedCompare, argumentCount: 2) { arguments throws(FunctionError) in
            if arguments.isNull(0) || arguments.isNull(1) { return .null }
            // text-audit: Darwin only, Apple's Foundation (not the Linux search that traps on NUL).
            return .integer(Int64(arguments.string(0).localizedCompare(arguments.string(1)).rawValue))
        }
    }
    #endif
}

/// Byte-level helpers for the text functions.
enum UTF8Text {
    static func string(_ bytes: UnsafeRawBufferPointer) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    static func sign(_ result: ComparisonResult) -> Int32 {
        switch result {
        case .orderedAscending: -1
        case .orderedSame: 0
        case .orderedDescending: 1
        }
    }

    /// ASCII without carriage returns: every byte is a `Character` of its own
    /// (only "\r\n" joins two ASCII scalars into one) and no ASCII string has
    /// another canonically equivalent spelling made of ASCII alone.
    static func isPlainASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        for byte in bytes where byte >= 0x80 || byte == 0x0D { return false }
        return true
    }

    /// Byte order of two ASCII strings, which is Swift's order for them; `nil`
    /// when either is not ASCII (then a canonically equivalent spelling such as
    /// KELVIN SIGN for "K" may exist, and Swift must decide).
    static func asciiCompare(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Int32? {
        for byte in left where byte >= 0x80 { return nil }
        for byte in right where byte >= 0x80 { return nil }
        let common = min(left.count, right.count)
        for index in 0..<common where left[index] != right[index] {
            return left[index] < right[index] ? -1 : 1
        }
        return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
    }

    /// The order of two texts by the UTF-8 bytes (so the Unicode scalars) of
    /// their NFC forms: a total order in which two texts are equal exactly
    /// when they are canonically equivalent, as Swift's `==` says. Bytes that
    /// are not valid UTF-8 read as U+FFFD, as a fetched object reads them.
    static func canonicalOrder(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Int32 {
        if let result = asciiCompare(left, right) { return result }
        let (a, b) = (nfc(string(left)), nfc(string(right)))
        return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : (a.utf8.elementsEqual(b.utf8) ? 0 : 1)
    }

    private static func nfc(_ text: String) -> String {
        SQLValue.normalized(text) ?? text
    }

    static func equal(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Bool {
        left.count == right.count && left.elementsEqual(right)
    }

    static func asciiContains(_ text: UnsafeRawBufferPointer, _ other: UnsafeRawBufferPointer) -> Bool {
        if other.isEmpty { return true }
        guard other.count <= text.count else { return false }
        for start in 0...(text.count - other.count)
        where equal(UnsafeRawBufferPointer(rebasing: text[start..<(start + other.count)]), other) {
            return true
        }
        return false
    }

    /// Runs a two-string test: on raw bytes when both are plain ASCII, on
    /// Swift Strings otherwise. NULL in, NULL out.
    static func search(
        _ arguments: FunctionArguments,
        swift: (String, String) -> Bool,
        ascii: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Bool
    ) throws(FunctionError) -> SQLValue {
        if arguments.isNull(0) || arguments.isNull(1) { return .null }
        let found = arguments.withUTF8(0) { text in
            arguments.withUTF8(1) { other in
                isPlainASCII(text) && isPlainASCII(other) ? ascii(text, other) : swift(string(text), string(other))
            }
        }
        return .integer(found ? 1 : 0)
    }
}
