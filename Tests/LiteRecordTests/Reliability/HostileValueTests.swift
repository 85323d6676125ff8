import Foundation
import LiteRecord
import PropertyBased
import Testing
import Synchronization

/// Property-based: every supported attribute type at its extremes, any
/// Unicode text (NUL included), `Data` up to 1 MB, dates far in the past and
/// future. Each value comes back exactly as saved, or the save is refused
/// with `.validationFailed`; none comes back different.
@Suite struct HostileValueTests {
    static let cases = 10_000

    /// The numeric half of one record.
    struct Numbers: Sendable, CustomStringConvertible {
        var bool: Bool
        var int: Int, int8: Int8, int16: Int16, int32: Int32, int64: Int64
        var uint: UInt, uint8: UInt8, uint16: UInt16, uint32: UInt32, uint64: UInt64
        var double: Double, float: Float, optionalDouble: Double?, optionalFloat: Float?
        var description: String {
            "int \(int) int64 \(int64) uint \(uint) uint64 \(uint64) double \(double.bitPattern) float \(float.bitPattern) optionalDouble \(String(describing: optionalDouble?.bitPattern)) optionalFloat \(String(describing: optionalFloat?.bitPattern))"
        }
    }

    /// The text, bytes and Foundation half of one record.
    struct Values: Sendable, CustomStringConvertible {
        var string: String, optionalString: String?
        var data: Data, optionalData: Data?
        var date: Date, optionalDate: Date?
        var uuid: UUID, url: URL, decimal: Decimal
        var description: String {
            "string \(Array(string.unicodeScalars.prefix(20)).map { $0.value }) data \(data.count) bytes date \(date.timeIntervalSinceReferenceDate.bitPattern) url \(url.absoluteString.prefix(60)) decimal \(decimal)"
        }
    }

    // MARK: Generators

    /// Doubles from anywhere in the bit space, with the edges often.
    static func double(_ rng: inout any SeededRandomNumberGenerator) -> Double {
        let edges: [Double] = [
            0, -0.0, .nan, -.nan, .signalingNaN, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
            .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude, .leastNormalMagnitude.nextDown,
            Double(Int64.max), Double(Int64.min), 1, -1, 0.1, .pi,
        ]
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return edges[Int.random(in: 0..<edges.count, using: &rng)]
        case 1: return Double(bitPattern: UInt64.random(in: 0...(1 << 52), using: &rng))  // subnormals
        case 2: return Double(Int64.random(in: -1_000_000...1_000_000, using: &rng))  // whole numbers
        default: return Double(bitPattern: UInt64.random(in: .min ... .max, using: &rng))
        }
    }

    static func float(_ rng: inout any SeededRandomNumberGenerator) -> Float {
        let edges: [Float] = [
            0, -0.0, .nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
            .leastNonzeroMagnitude, .leastNormalMagnitude.nextDown, 1, 0.1,
        ]
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: return edges[Int.random(in: 0..<edges.count, using: &rng)]
        case 1: return Float(bitPattern: UInt32.random(in: 0...(1 << 23), using: &rng))
        default: return Float(bitPattern: UInt32.random(in: .min ... .max, using: &rng))
        }
    }

    static func integer<T: FixedWidthInteger>(_ rng: inout any SeededRandomNumberGenerator, as: T.Type = T.self) -> T {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return [T.min, T.max, 0, T.min &+ 1, T.max &- 1][Int.random(in: 0..<5, using: &rng)]
        case 1: return T(truncatingIfNeeded: Int64(Int64.max))  // Int64.max, or all ones for the narrow types
        default: return T.random(in: T.min...T.max, using: &rng)
        }
    }

    /// `UInt`/`UInt64`: mostly storable, one in twenty above `Int64.max`, so
    /// that refusals do not hide the other values of most cases.
    static func wideUnsigned<T: FixedWidthInteger & UnsignedInteger>(_ rng: inout any SeededRandomNumberGenerator, as: T.Type = T.self) -> T {
        if Int.random(in: 0..<20, using: &rng) == 0 { return T.random(in: T(Int64.max)...T.max, using: &rng) }
        return T(min(integer(&rng, as: Int64.self).magnitude, UInt64(Int64.max)))
    }

    /// A Unicode scalar from anywhere (no surrogates), NUL and controls often.
    static func scalar(_ rng: inout any SeededRandomNumberGenerator) -> Unicode.Scalar {
        let value: UInt32 =
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: UInt32.random(in: 0...0x1F, using: &rng)
            case 1: UInt32.random(in: 0...0x7F, using: &rng)
            case 2: UInt32.random(in: 0x80...0xD7FF, using: &rng)
            case 3: [0x301, 0x200D, 0xFE0F, 0xFEFF, 0xFFFD, 0x1F469, 0x1F3FB, 0x10FFFF][Int.random(in: 0..<8, using: &rng)]
            default: UInt32.random(in: 0xE000...0x10FFFF, using: &rng)
            }
        return Unicode.Scalar(value) ?? "\u{FFFD}"
    }

    static func string(_ rng: inout any SeededRandomNumberGenerator) -> String {
        let count = Int.random(in: 0..<8, using: &rng) == 0 ? Int.random(in: 0...2000, using: &rng) : Int.random(in: 0...24, using: &rng)
        var scalars = String.UnicodeScalarView()
        for _ in 0..<count { scalars.append(scalar(&rng)) }
        return String(scalars)
    }

    /// Mostly small, sometimes kilobytes, about one in a hundred up to 1 MB.
    static func data(_ rng: inout any SeededRandomNumberGenerator) -> Data {
        let roll = Int.random(in: 0..<100, using: &rng)
        let count =
            roll == 0
            ? Int.random(in: 0...1_048_576, using: &rng)
            : roll < 10 ? Int.random(in: 0...8192, using: &rng) : Int.random(in: 0...64, using: &rng)
        var bytes = [UInt8](repeating: 0, count: count)
        var index = 0
        while index < count {
            var word = rng.next()
            for _ in 0..<8 where index < count {
                bytes[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
        return Data(bytes)
    }

    /// Dates from the far past to the far future, the edges included.
    static func date(_ rng: inout any SeededRandomNumberGenerator) -> Date {
        let edges: [Double] = [
            .nan, -0.0, 0, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
            Date.distantPast.timeIntervalSinceReferenceDate, Date.distantFuture.timeIntervalSinceReferenceDate,
            -62_135_596_800, 253_402_300_799, .leastNonzeroMagnitude,
        ]
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: return Date(timeIntervalSinceReferenceDate: edges[Int.random(in: 0..<edges.count, using: &rng)])
        case 1: return Date(timeIntervalSinceReferenceDate: Double.random(in: -1e15...1e15, using: &rng))
        default: return Date(timeIntervalSinceReferenceDate: double(&rng))
        }
    }

    static func url(_ rng: inout any SeededRandomNumberGenerator) -> URL {
        let samples = [
            "https://example.com/a%20b/%C3%A9?q=1&r=%2F#frag", "file:///tmp/x%00y", "mailto:someone@example.com",
            "data:text/plain;base64,SGVsbG8=", "http://[::1]:8080/", "relative/path", "?only=query", "#only-fragment",
            "https://user:pass@host:1/p;params?q#f", "urn:isbn:0451450523", "a:", "HTTP://EXAMPLE.COM/%7Efoo",
        ]
        if Int.random(in: 0..<3, using: &rng) == 0 {
            return URL(fileURLWithPath: "/" + string(&rng).replacingOccurrences(of: "\u{0}", with: ""))
        }
        if Int.random(in: 0..<2, using: &rng) == 0,
            let url = URL(string: "https://example.com/" + string(&rng).addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!)
        {
            return url
        }
        return URL(string: samples[Int.random(in: 0..<samples.count, using: &rng)])!
    }

    static func decimal(_ rng: inout any SeededRandomNumberGenerator) -> Decimal {
        let edges: [Decimal] = [
            .greatestFiniteMagnitude, .leastFiniteMagnitude, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, 0, .pi,
            Decimal(string: "0.1")!, Decimal(string: "-12345678901234567890.123456789")!,
        ]
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: return edges[Int.random(in: 0..<edges.count, using: &rng)]
        case 1: return Decimal(Int64.random(in: .min ... .max, using: &rng))
        default:
            let mantissa = Decimal(UInt64.random(in: .min ... .max, using: &rng))
            let exponent = Int.random(in: -110...105, using: &rng)
            return Int.random(in: 0..<2, using: &rng) == 0 ? mantissa * pow(10, exponent) : -mantissa * pow(10, exponent)
        }
    }

    static let numbers = Generator<Numbers, Shrink.None<Numbers>> { rng in
        Numbers(
            bool: Bool.random(using: &rng), int: integer(&rng), int8: integer(&rng), int16: integer(&rng),
            int32: integer(&rng), int64: integer(&rng), uint: wideUnsigned(&rng), uint8: integer(&rng),
            uint16: integer(&rng), uint32: integer(&rng), uint64: wideUnsigned(&rng), double: double(&rng),
            float: float(&rng), optionalDouble: Bool.random(using: &rng) ? double(&rng) : nil,
            optionalFloat: Bool.random(using: &rng) ? float(&rng) : nil)
    }

    static let values = Generator<Values, Shrink.None<Values>> { rng in
        Values(
            string: string(&rng), optionalString: Bool.random(using: &rng) ? string(&rng) : nil,
            data: data(&rng), optionalData: Bool.random(using: &rng) ? data(&rng) : nil,
            date: date(&rng), optionalDate: Bool.random(using: &rng) ? date(&rng) : nil,
            uuid: UUID(), url: url(&rng), decimal: decimal(&rng))
    }

    // MARK: The property

    /// The attributes whose values must be refused; empty when every value
    /// must round-trip. The save names one of them (the first it encodes).
    static func expectedRefusals(_ numbers: Numbers, _ values: Values) -> [String] {
        func refused(_ value: Double?) -> Bool { value.map { $0.isNaN || ($0 == 0 && $0.sign == .minus) } ?? false }
        func refused(_ value: Float?) -> Bool { value.map { $0.isNaN || ($0 == 0 && $0.sign == .minus) } ?? false }
        let checks: [(String, Bool)] = [
            ("double", refused(numbers.double)), ("float", refused(numbers.float)),
            ("uint", numbers.uint > UInt(Int64.max)), ("uint64", numbers.uint64 > UInt64(Int64.max)),
            ("date", values.date.timeIntervalSinceReferenceDate.isNaN), ("decimal", values.decimal.isNaN),
            ("optionalDouble", refused(numbers.optionalDouble)), ("optionalFloat", refused(numbers.optionalFloat)),
            ("optionalDate", values.optionalDate?.timeIntervalSinceReferenceDate.isNaN == true),
        ]
        return checks.filter(\.1).map { "AllTypes.\($0.0):" }
    }

    final class Tally: Sendable {
        let counts = Mutex<(roundTripped: Int, refused: Int, bytes: Int, largest: Int)>((0, 0, 0, 0))
        let reasons = Mutex<[String: Int]>([:])
    }

    @Test func everyValueRoundTripsOrIsRefused() async throws {
        let stack = try RecordStack(inMemoryWith: [AllTypes.self])
        defer { try? stack.close() }
        let tally = Tally()
        let started = ContinuousClock.now
        await propertyCheck(count: Self.cases, input: Self.numbers, Self.values) { numbers, values in
            let object = AllTypes()
            object.bool = numbers.bool
            object.int = numbers.int
            object.int8 = numbers.int8
            object.int16 = numbers.int16
            object.int32 = numbers.int32
            object.int64 = numbers.int64
            object.uint = numbers.uint
            object.uint8 = numbers.uint8
            object.uint16 = numbers.uint16
            object.uint32 = numbers.uint32
            object.uint64 = numbers.uint64
            object.double = numbers.double
            object.float = numbers.float
            object.optionalDouble = numbers.optionalDouble
            object.optionalFloat = numbers.optionalFloat
            object.string = values.string
            object.optionalString = values.optionalString
            object.data = values.data
            object.optionalData = values.optionalData
            object.date = values.date
            object.optionalDate = values.optionalDate
            object.uuid = values.uuid
            object.url = values.url
            object.decimal = values.decimal
            let context = stack.newContext()
            context.insert(object)
            let refusals = Self.expectedRefusals(numbers, values)
            do {
                try context.save()
            } catch let error as LiteRecordError {
                #expect(error.kind == .validationFailed, "\(error)")
                #expect(!refusals.isEmpty, "refused values that should round-trip: \(error.message)")
                #expect(refusals.contains { error.message.contains($0) }, "expected one of \(refusals): \(error.message)")
                tally.counts.withLock { $0.refused += 1 }
                let attribute = String(error.message.prefix { $0 != ":" }.dropFirst("AllTypes.".count))
                tally.reasons.withLock { $0[attribute, default: 0] += 1 }
                return
            }
            #expect(refusals.isEmpty, "saved values that should have been refused: \(refusals)")
            let id = try #require(object.recordID)
            let read = try #require(try stack.newContext().object(with: id, as: AllTypes.self))
            #expect(read.bool == numbers.bool)
            #expect(read.int == numbers.int && read.int8 == numbers.int8 && read.int16 == numbers.int16)
            #expect(read.int32 == numbers.int32 && read.int64 == numbers.int64)
            #expect(read.uint == numbers.uint && read.uint8 == numbers.uint8 && read.uint16 == numbers.uint16)
            #expect(read.uint32 == numbers.uint32 && read.uint64 == numbers.uint64)
            #expect(read.double.bitPattern == numbers.double.bitPattern)
            #expect(read.float.bitPattern == numbers.float.bitPattern)
            #expect(read.optionalDouble?.bitPattern == numbers.optionalDouble?.bitPattern)
            #expect(read.optionalFloat?.bitPattern == numbers.optionalFloat?.bitPattern)
            // Byte for byte, not Swift's canonical equivalence.
            #expect(Array(read.string.utf8) == Array(values.string.utf8))
            #expect(read.optionalString.map { Array($0.utf8) } == values.optionalString.map { Array($0.utf8) })
            #expect(read.data == values.data)
            #expect(read.optionalData == values.optionalData)
            // `==` on Date: a -0.0 interval is the reference date itself.
            #expect(read.date == values.date)
            #expect(read.optionalDate == values.optionalDate)
            #expect(read.uuid == values.uuid)
            #expect(read.url.absoluteString == values.url.absoluteString)
            #expect(read.decimal == values.decimal, "\(read.decimal) != \(values.decimal)")
            tally.counts.withLock {
                $0.roundTripped += 1
                $0.bytes += values.data.count + (values.optionalData?.count ?? 0)
                $0.largest = max($0.largest, values.data.count, values.optionalData?.count ?? 0)
            }
            let cleanup = stack.newContext()
            if let stored = try cleanup.object(with: id, as: AllTypes.self) {
                cleanup.delete(stored)
                try cleanup.save()
            }
        }
        let counts = tally.counts.withLock { $0 }
        let reasons = tally.reasons.withLock { $0 }.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        print(
            "[reliability] hostile values: \(Self.cases) cases, \(counts.roundTripped) round-tripped exactly, \(counts.refused) refused with .validationFailed (first refused attribute: \(reasons.joined(separator: ", "))), \(counts.bytes / 1024) KiB of Data (largest \(counts.largest) bytes), \(ContinuousClock.now - started)"
        )
        #expect(counts.roundTripped + counts.refused == Self.cases)
    }
}
