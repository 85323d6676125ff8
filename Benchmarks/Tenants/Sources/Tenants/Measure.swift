import Foundation

/// Latencies of one kind of operation, in seconds.
struct Latencies: Sendable {
    var values: [Double] = []

    mutating func add(_ value: Double) { values.append(value) }
    mutating func add(_ other: Latencies) { values += other.values }

    func percentile(_ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }

    var summary: String {
        values.isEmpty
            ? "none"
            : "p50 \(Self.ms(percentile(0.5))) ms, p99 \(Self.ms(percentile(0.99))) ms (\(values.count))"
    }

    static func ms(_ seconds: Double) -> String { String(format: "%.3f", seconds * 1000) }
}

func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Picks tenant indexes 0..<count with probability ∝ 1/(rank+1)^s.
struct Zipf: Sendable {
    let cumulative: [Double]

    init(count: Int, exponent: Double = 1.0) {
        var total = 0.0
        var sums: [Double] = []
        sums.reserveCapacity(count)
        for rank in 0..<count {
            total += 1 / pow(Double(rank + 1), exponent)
            sums.append(total)
        }
        cumulative = sums.map { $0 / total }
    }

    func next(_ random: inout SplitMix) -> Int {
        let u = Double(random.next() >> 11) / Double(1 << 53)
        var low = 0
        var high = cumulative.count - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] < u { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// A small seeded generator, so runs are repeatable.
struct SplitMix: Sendable {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The process's open descriptors and resident memory (KiB), from `/proc`;
/// -1 where there is none.
enum ProcessFigures {
    static func descriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    static func residentKilobytes(_ field: String = "VmRSS:") -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
        for line in status.split(separator: "\n") where line.hasPrefix(field) {
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
        }
        return -1
    }
}

/// Mirrors RecordStacks' least-recently-used cap, to tell an operation on a
/// tenant that had to be opened (cold) from one on an open tenant.
final class OpenMirror: @unchecked Sendable {
    private let lock = NSLock()
    private var order: [Int: UInt64] = [:]
    private var tick: UInt64 = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// Whether `tenant` was open before this use; notes the use.
    func use(_ tenant: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        tick += 1
        let wasOpen = order[tenant] != nil
        order[tenant] = tick
        if order.count > capacity, let oldest = order.min(by: { $0.value < $1.value })?.key { order[oldest] = nil }
        return wasOpen
    }
}
