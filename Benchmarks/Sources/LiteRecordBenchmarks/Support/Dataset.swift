import Foundation

/// The benchmark data: deterministic rows generated from a seed, identical for
/// every engine, and the checksum that shows two engines saw the same rows.

/// SplitMix64: tiny, fast and fully deterministic across platforms.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A double in `0..<1` with 53 random bits.
    mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }
}

/// The column values of one `item` row, without its id.
struct ItemValues: Sendable {
    var uuid: String
    var name: String
    var age: Int
    var score: Double
    /// Seconds since 2001-01-01 (what `Date.timeIntervalSinceReferenceDate` holds).
    var created: Double
    var email: String?
}

enum Dataset {
    static let seed: UInt64 = 0x4C69_7465_5265_636F  // "LiteReco"
    /// Ages are uniform in this range, so `age BETWEEN x AND x+2` selects about
    /// 3.7% of the rows and the `age` index matters.
    static let ages = 18...99

    private static let firstNames = [
        "Ada", "Bruno", "Chiara", "Dmitri", "Elena", "Farid", "Greta", "Hiro", "Ines", "Jonas",
        "Kaia", "Lars", "Mira", "Nikolai", "Olga", "Pavel", "Quinn", "Rosa", "Sven", "Tala",
    ]
    private static let lastNames = [
        "Abara", "Berger", "Costa", "Dubois", "Eriksen", "Fischer", "Garcia", "Horvat", "Ivanova", "Jensen",
        "Kowalski", "Lindqvist", "Moreau", "Novak", "Okafor", "Petrov", "Quiroga", "Rossi", "Silva", "Tanaka",
    ]

    /// Row `index` (0-based) of the data set: the same values whoever asks,
    /// whatever was generated before. Names are unique (they end with the index),
    /// so `ORDER BY name` has no ties and every engine returns the same rows.
    /// `nilEmailOneIn`: one row in that many, at random, has no email.
    static func row(_ index: Int, nilEmailOneIn: UInt64 = 5) -> ItemValues {
        var random = SplitMix64(seed: seed ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
        let first = firstNames[Int(random.next() % UInt64(firstNames.count))]
        let last = lastNames[Int(random.next() % UInt64(lastNames.count))]
        let name = "\(first) \(last) \(index)"
        let age = ages.lowerBound + Int(random.next() % UInt64(ages.count))
        let score = (random.unit() * 100_000).rounded() / 1000
        let created = 700_000_000 + random.unit() * 100_000_000
        let email: String? = random.next() % nilEmailOneIn == 0 ? nil : "\(first.lowercased()).\(last.lowercased())\(index)@example.com"
        return ItemValues(uuid: uuidString(random.next(), random.next()), name: name, age: age, score: score, created: created, email: email)
    }

    /// Row `index` of `memory-user`'s data set: `row(index)` with a third of
    /// the emails `nil`, as an outside harness measured the shape apps write.
    static func userRow(_ index: Int) -> ItemValues {
        row(index, nilEmailOneIn: 3)
    }

    static func rows(_ count: Int) -> [ItemValues] {
        (0..<count).map { row($0) }
    }

    /// An uppercase RFC 4122 version-4 UUID string, as `UUID.uuidString` prints it.
    static func uuidString(_ high: UInt64, _ low: UInt64) -> String {
        let high = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        let digits = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(36)
        for nibble in 0..<32 {
            if [8, 12, 16, 20].contains(nibble) { bytes.append(UInt8(ascii: "-")) }
            let word = nibble < 16 ? high : low
            let shift = UInt64(60 - 4 * (nibble % 16))
            bytes.append(digits[Int((word >> shift) & 0xF)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The lower bounds of the 200 `age BETWEEN x AND x+2` queries.
    static func queryLowerBounds(count: Int = 200) -> [Int] {
        var random = SplitMix64(seed: seed &+ 200)
        let span = UInt64(ages.count - 2)
        return (0..<count).map { _ in ages.lowerBound + Int(random.next() % span) }
    }

    /// The score an update workload writes: a pure function of the old one, so
    /// every engine writes the same values.
    @inline(__always)
    static func updatedScore(_ score: Double) -> Double { score + 1 }
}

/// An order-independent digest of a set of rows: the row count plus the
/// wrapping sum of a 64-bit FNV-1a hash of each row's values. Two engines that
/// read or wrote the same rows print the same checksum.
struct Checksum: Sendable, Equatable {
    private(set) var count = 0
    private(set) var sum: UInt64 = 0
    /// Printed instead of the count and sum (the `concurrent` workload's
    /// `verified`, see `ConcurrentRun`).
    var label: String?

    init() {}

    /// A checksum that only counts (the open workload reads a row count).
    init(rowCount: Int) { count = rowCount }

    mutating func add(uuid: String, name: String, age: Int, score: Double, created: Double, email: String?) {
        var hasher = RowHasher()
        hasher.add(uuid)
        hasher.add(name)
        hasher.add(UInt64(bitPattern: Int64(age)))
        hasher.add(score.bitPattern)
        hasher.add(created.bitPattern)
        if let email { hasher.add(email) } else { hasher.addNull() }
        addRowHash(hasher.value)
    }

    /// A row as the record engines hold it: a `UUID` and a `Date`, compared
    /// as the data set's uppercase text and reference-date seconds.
    mutating func add(uuid: UUID, name: String, age: Int, score: Double, created: Date, email: String?) {
        add(uuid: uuid.uuidString, name: name, age: age, score: score, created: created.timeIntervalSinceReferenceDate, email: email)
    }

    mutating func add(_ values: ItemValues) {
        add(uuid: values.uuid, name: values.name, age: values.age, score: values.score, created: values.created, email: values.email)
    }

    mutating func addRowHash(_ hash: UInt64) {
        count += 1
        sum &+= hash
    }

    mutating func merge(_ other: Checksum) {
        count += other.count
        sum &+= other.sum
    }

    var text: String { label ?? "\(count):\(String(sum, radix: 16))" }
}

/// FNV-1a over a row's fields; text fields are hashed as their UTF-8 bytes and
/// terminated, so `("ab", "c")` and `("a", "bc")` differ.
struct RowHasher {
    private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

    @inline(__always)
    mutating func add(byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }

    mutating func add(_ text: String) {
        var text = text
        text.withUTF8 { add(bytes: $0) }
    }

    mutating func add(bytes: UnsafeBufferPointer<UInt8>) {
        for byte in bytes { add(byte: byte) }
        add(byte: 0xFF)  // never a UTF-8 byte: a field separator
    }

    mutating func add(_ word: UInt64) {
        var word = word
        for _ in 0..<8 {
            add(byte: UInt8(truncatingIfNeeded: word))
            word >>= 8
        }
    }

    mutating func addNull() { add(byte: 0xFE) }
}
