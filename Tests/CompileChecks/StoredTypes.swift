// The types whose storage overload resolution chooses (a
// raw-value enum, a Codable struct, a Codable enum without a raw value, a
// list) go through one coder per property, declared beside it; it compiles
// under both default isolations and encodes as before. The value types are
// `nonisolated`, as a project whose default isolation is the main actor
// declares them: their `Codable` conformance would otherwise be main-actor
// isolated, unusable where the store encodes, and Swift 6.3 reports a raw-value
// enum's conformances as a "circular reference" (Docs/GettingStarted.md).
import Foundation
import LiteRecord

nonisolated enum Priority: Int {
    case low, high
}

nonisolated enum Weather: Codable {
    case sunny, rainy(millimetres: Double)
}

nonisolated struct Location: Codable, Equatable {
    var latitude = 0.0
    var longitude = 0.0
}

@Entity final class Entry {
    var priority: Priority = .low
    var weather: Weather = .sunny
    var location = Location()
    var tags: [String] = []
    @Attribute var previous: Priority?
    init() {}
}

func describe(_ entry: Entry) throws -> [SQLValue] {
    try (0..<Entry.attributes.count).map { try entry.encodeAttribute(at: $0) }
}
