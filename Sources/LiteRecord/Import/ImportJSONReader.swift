import Foundation

/// Reads the JSON text an import is given (RFC 8259, UTF-8) into the values
/// `JSONSerialization` gives — `[String: Any]`, `[Any]`, `String`,
/// `NSNumber`, `NSNull` — so hooks see the same types, but without losing a
/// digit of any number.
///
/// `JSONSerialization` reads a number of more than 17 characters through
/// `Decimal` (38 digits) and others through `Double`: `1e-400` becomes `0`,
/// a 48-digit integer loses ten digits. Here each number becomes an
/// `NSNumber` only when that holds it exactly (an `Int64`, a `UInt64`, or a
/// `Double` whose shortest text is the same value); any other number is
/// given to the hooks as an `NSDecimalNumber` (as `JSONSerialization` gives
/// long numbers; its `Decimal` may be rounded, or NaN past its range), and
/// its exact value is kept in ``exactNumbers`` for the import.
///
/// Written as a loop over an explicit stack, not by recursion: nesting is
/// limited to ``maximumDepth`` levels, and deeper text is refused rather
/// than allowed to overflow the stack.
struct ImportJSONReader {
    /// JSONSerialization's own limit.
    static let maximumDepth = 512

    enum Container {
        case object([String: Any], key: String)
        case array([Any])
        /// Held only while a value goes in (see `add`).
        case emptied

        var isObject: Bool {
            if case .object = self { true } else { false }
        }

        /// Puts `value` in the container, in place: the container is emptied
        /// first, so that the array or dictionary taken out of it is the only
        /// reference to its storage. Otherwise every value added copies all
        /// the values before it, and reading an array of n objects costs n².
        mutating func add(_ value: Any) {
            switch self {
            case .object(var object, let key):
                self = .emptied
                object[key] = value
                self = .object(object, key: key)
            case .array(var array):
                self = .emptied
                array.append(value)
                self = .array(array)
            case .emptied:
                break
            }
        }

        /// The key the object's next value goes under.
        mutating func expect(_ key: String) {
            guard case .object(let object, _) = self else { return }
            self = .emptied
            self = .object(object, key: key)
        }
    }

    private let bytes: [UInt8]
    private var position = 0
    /// The exact value of each number no `NSNumber` holds exactly, by the
    /// identity of the `NSNumber` the tree holds instead.
    private(set) var exactNumbers: [ObjectIdentifier: ImportNumber] = [:]

    /// Whether every string is read by `plainString()`, for the test that
    /// compares `string()`'s ASCII path with it.
    private let readsStringsPlainly: Bool

    init(_ data: Data, readingStringsPlainly: Bool = false) {
        bytes = Array(data)
        readsStringsPlainly = readingStringsPlainly
        // A UTF-8 byte order mark, which RFC 8259 lets a reader ignore.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
    }

    struct Failure: Error {
        let reason: String
    }

    /// The whole text as one value.
    mutating func read() throws(Failure) -> Any {
        var stack: [Container] = []
        while true {
            var value: Any
            skipSpace()
            switch peek() {
            case UInt8(ascii: "{"):
                position += 1
                skipSpace()
                if take(UInt8(ascii: "}")) {
                    value = [String: Any]()
                } else {
                    guard stack.count < Self.maximumDepth else { throw tooDeep() }
                    // Room for the members of a typical record, so that an
                    // object does not grow its table two or three times.
                    stack.append(.object(Dictionary(minimumCapacity: 8), key: try key()))
                    continue
                }
            case UInt8(ascii: "["):
                position += 1
                skipSpace()
                if take(UInt8(ascii: "]")) {
                    value = [Any]()
                } else {
                    guard stack.count < Self.maximumDepth else { throw tooDeep() }
                    stack.append(.array([]))
                    continue
                }
            default:
                value = try scalar()
            }
            // Put the value in its container, closing the containers that end here.
            while true {
                guard !stack.isEmpty else {
                    skipSpace()
                    guard position == bytes.count else { throw failure("text after the JSON value") }
                    return value
                }
                let top = stack.count - 1
                stack[top].add(value)
                skipSpace()
                if take(UInt8(ascii: ",")) {
                    if stack[top].isObject { stack[top].expect(try key()) }
                    break
                }
                switch stack.removeLast() {
                case .object(let object, _) where take(UInt8(ascii: "}")): value = object
                case .array(let array) where take(UInt8(ascii: "]")): value = array
                case let container: throw failure("expected ',' or the end of an \(container.isObject ? "object" : "array")")
                }
            }
        }
    }

    // MARK: Pieces

    private func peek() -> UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        position += 1
        return true
    }

    private mutating func skipSpace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
    }

    private func failure(_ reason: String) -> Failure {
        Failure(reason: "\(reason) at byte \(position)")
    }

    private func tooDeep() -> Failure {
        failure("objects and arrays nested more than \(Self.maximumDepth) levels deep")
    }

    /// A member's name and its `:`.
    private mutating func key() throws(Failure) -> String {
        skipSpace()
        guard take(UInt8(ascii: "\"")) else { throw failure("expected a member name in quotes") }
        let name = try string()
        skipSpace()
        guard take(UInt8(ascii: ":")) else { throw failure("expected ':' after a member name") }
        return name
    }

    private mutating func scalar() throws(Failure) -> Any {
        guard let byte = peek() else { throw failure("unexpected end of the text") }
        switch byte {
        case UInt8(ascii: "\""):
            position += 1
            return try string()
        case UInt8(ascii: "t"): return try literal("true", NSNumber(value: true))
        case UInt8(ascii: "f"): return try literal("false", NSNumber(value: false))
        case UInt8(ascii: "n"): return try literal("null", NSNull())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("unexpected character")
        }
    }

    private mutating func literal(_ word: String, _ value: Any) throws(Failure) -> Any {
        let expected = Array(word.utf8)
        guard bytes[position...].starts(with: expected) else { throw failure("unexpected character") }
        position += expected.count
        return value
    }
}

// MARK: Strings and numbers

extension ImportJSONReader {
    /// The rest of a string after its opening quote.
    ///
    /// Most strings are ASCII without an escape: those become a `String`
    /// straight from the bytes between the quotes, which need no
    /// validation, where `plainString()` copies them out first and has
    /// `String(validating:)` check them (unspecialized, a third of the
    /// import's reading). Anything else goes the plain way.
    fileprivate mutating func string() throws(Failure) -> String {
        let start = position
        var isASCII = !readsStringsPlainly
        while isASCII, let byte = peek(), byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            isASCII = byte >= 0x20 && byte < 0x80
            position += 1
        }
        guard isASCII, peek() == UInt8(ascii: "\"") else {
            position = start
            return try plainString()
        }
        let end = position
        position += 1
        return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self) }
    }

    /// The rest of a string after its opening quote, escapes resolved and
    /// the whole checked to be UTF-8.
    private mutating func plainString() throws(Failure) -> String {
        var text: [UInt8] = []
        var start = position
        while true {
            guard let byte = peek() else { throw failure("unterminated string") }
            if byte == UInt8(ascii: "\"") {
                text += bytes[start..<position]
                position += 1
                break
            }
            guard byte >= 0x20 else { throw failure("a control character in a string") }
            guard byte == UInt8(ascii: "\\") else {
                position += 1
                continue
            }
            text += bytes[start..<position]
            position += 1
            try escape(into: &text)
            start = position
        }
        guard let string = String(validating: text, as: UTF8.self) else { throw failure("a string that is not UTF-8") }
        return string
    }

    /// One escape after its backslash.
    private mutating func escape(into text: inout [UInt8]) throws(Failure) {
        guard let byte = peek() else { throw failure("unterminated string") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(byte)
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "r"): text.append(0x0D)
        case UInt8(ascii: "t"): text.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
                guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")) else { throw failure("a lone surrogate in a string") }
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate in a string") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw failure("a lone surrogate in a string") }
            text += Array(String(Character(unicode)).utf8)
        default: throw failure("an unknown escape in a string")
        }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard position + 4 <= bytes.count else { throw failure("unterminated string") }
        var value: UInt32 = 0
        for byte in bytes[position..<position + 4] {
            guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else { throw failure("a bad \\u escape") }
            value = value << 4 | UInt32(digit)
        }
        position += 4
        return value
    }

    /// A number in JSON's grammar, as the value that holds it exactly.
    fileprivate mutating func number() throws(Failure) -> Any {
        let start = position
        _ = take(UInt8(ascii: "-"))
        if !take(UInt8(ascii: "0")) {
            guard digits() > 0 else { throw failure("a number without digits") }
        }
        var isInteger = true
        if take(UInt8(ascii: ".")) {
            isInteger = false
            guard digits() > 0 else { throw failure("a number without digits after its '.'") }
        }
        if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
            isInteger = false
            _ = take(UInt8(ascii: "+")) || take(UInt8(ascii: "-"))
            guard digits() > 0 else { throw failure("a number without digits in its exponent") }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if isInteger {
            if let integer = Int64(text) { return NSNumber(value: integer) }
            if let unsigned = UInt64(text) { return NSNumber(value: unsigned) }
        }
        guard let exact = ImportNumber(text: text) else { throw failure("a malformed number") }
        let double = Double(text) ?? .nan
        if !isInteger, let carried = ImportNumber(double: double), carried == exact, carried.isNegative == exact.isNegative {
            return NSNumber(value: double)
        }
        // A new object for each number, so that its identity names it:
        // `NSNumber(value:)` hands out one shared object for 0.0 or infinity.
        let approximation = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? .nan
        let number = NSDecimalNumber(decimal: approximation)
        exactNumbers[ObjectIdentifier(number)] = exact
        return number
    }

    private mutating func digits() -> Int {
        let start = position
        while let byte = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { position += 1 }
        return position - start
    }
}
