import Foundation
import LiteRecord

/// The rows the query workload reads: `make bench`'s shape (a name, an
/// indexed age, a score), generated from a seed.
@Entity final class Item {
    var name: String
    @Attribute(.indexed) var age: Int
    var score: Double

    init(name: String, age: Int, score: Double) {
        self.name = name
        self.age = age
        self.score = score
    }
}

/// One counter per phase: the commit number the primary last made.
@Entity final class Counter {
    @Attribute(.unique) var phase: String
    var value: Int

    init(phase: String) {
        self.phase = phase
        value = 0
    }
}

/// The rows a commit adds beside its counter: one per lag commit, three per
/// torn-read commit.
@Entity final class Mark {
    @Attribute(.indexed) var phase: String
    var commit: Int

    init(phase: String, commit: Int) {
        self.phase = phase
        self.commit = commit
    }
}

let entities: [any Entity.Type] = [Item.self, Counter.self, Mark.self]

/// `make bench`'s data: ages uniform in 18...99, unique names, from SplitMix64.
enum Rows {
    static let ages = 18...99

    static func item(_ index: Int) -> Item {
        var state = UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15 ^ 0x4C69_7465_5265_636F
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let age = ages.lowerBound + Int(next() % UInt64(ages.count))
        let score = Double(next() % 100_000) / 1000
        return Item(name: "Person \(next() % 1000) \(index)", age: age, score: score)
    }

    /// The lower bounds of the 200 `age BETWEEN x AND x+2` queries.
    static func queryLowerBounds() -> [Int] {
        (0..<200).map { ages.lowerBound + ($0 * 37) % (ages.count - 2) }
    }
}
