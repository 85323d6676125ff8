import Foundation
import LiteRecord
import Testing

/// One predicate over stored collections, with a name for the test report.
struct CollectionPredicateCase: Sendable, CustomTestStringConvertible {
    let name: String
    let predicate: Predicate<CollectionHolder>
    var testDescription: String { name }
}

/// The stored-collection predicates of the translation table, grouped by
/// element type. Each `#Predicate` is its own expression.
enum CollectionPredicateTable {
    static func strings() -> [CollectionPredicateCase] {
        let cafe = "café"
        let nul = "\u{0}"
        let backslashU = "\\u0000"
        let empty = ""
        let wanted = ["café", "K", "Null\u{0}byte", "a"]
        let wantedSet: Set<String> = ["b", "Cafe\u{301}", ""]
        return [
            CollectionPredicateCase(name: "tags.contains(swift)", predicate: #Predicate { $0.tags.contains("swift") }),
            CollectionPredicateCase(name: "tags.contains(café) (either spelling)", predicate: #Predicate { $0.tags.contains(cafe) }),
            CollectionPredicateCase(name: "tags.contains(Cafe\\u{301})", predicate: #Predicate { $0.tags.contains("Cafe\u{301}") }),
            CollectionPredicateCase(name: "tags.contains(K) (KELVIN SIGN too)", predicate: #Predicate { $0.tags.contains("K") }),
            CollectionPredicateCase(name: "tags.contains(a) (not ab)", predicate: #Predicate { $0.tags.contains("a") }),
            CollectionPredicateCase(name: "tags.contains(Null) (not Null\\0byte)", predicate: #Predicate { $0.tags.contains("Null") }),
            CollectionPredicateCase(name: "tags.contains(Null\\0byte)", predicate: #Predicate { $0.tags.contains("Null\u{0}byte") }),
            CollectionPredicateCase(name: "tags.contains(\\0)", predicate: #Predicate { $0.tags.contains(nul) }),
            CollectionPredicateCase(name: "tags.contains(x\\0)", predicate: #Predicate { $0.tags.contains("x\u{0}") }),
            CollectionPredicateCase(name: "tags.contains(literal \\u0000)", predicate: #Predicate { $0.tags.contains(backslashU) }),
            CollectionPredicateCase(name: "tags.contains(empty)", predicate: #Predicate { $0.tags.contains(empty) }),
            CollectionPredicateCase(name: "tags.contains(1) (not 10)", predicate: #Predicate { $0.tags.contains("1") }),
            CollectionPredicateCase(name: "tags.contains(quote\")", predicate: #Predicate { $0.tags.contains("quote\"") }),
            CollectionPredicateCase(name: "tags.contains(\"a\")", predicate: #Predicate { $0.tags.contains("\"a\"") }),
            CollectionPredicateCase(name: "tags.contains(null)", predicate: #Predicate { $0.tags.contains("null") }),
            CollectionPredicateCase(name: "tags.contains(a\\r\\nb)", predicate: #Predicate { $0.tags.contains("a\r\nb") }),
            CollectionPredicateCase(name: "tags.contains(emoji)", predicate: #Predicate { $0.tags.contains("😀") }),
            CollectionPredicateCase(name: "!tags.contains(a)", predicate: #Predicate { !$0.tags.contains("a") }),
            CollectionPredicateCase(name: "tags.contains(name)", predicate: #Predicate { $0.tags.contains($0.name) }),
            CollectionPredicateCase(name: "tags.contains(key) (json_each has a key column)", predicate: #Predicate { $0.tags.contains($0.key) }),
            CollectionPredicateCase(name: "tags.contains { $0 == b }", predicate: #Predicate { $0.tags.contains { $0 == "b" } }),
            CollectionPredicateCase(name: "tags.contains { starts(with: a) }", predicate: #Predicate { $0.tags.contains { $0.starts(with: "a") } }),
            CollectionPredicateCase(name: "tags.contains { contains(é) }", predicate: #Predicate { $0.tags.contains { $0.contains("é") } }),
            CollectionPredicateCase(name: "tags.contains { contains(\\0) }", predicate: #Predicate { $0.tags.contains { $0.contains(nul) } }),
            CollectionPredicateCase(name: "tags.contains { count > 3 }", predicate: #Predicate { $0.tags.contains { $0.count > 3 } }),
            CollectionPredicateCase(name: "tags.contains { $0 < b }", predicate: #Predicate { $0.tags.contains { $0 < "b" } }),
            CollectionPredicateCase(
                name: "holder in tags.contains { $0 == holder.name }",
                predicate: #Predicate { holder in holder.tags.contains { $0 == holder.name } }),
            CollectionPredicateCase(
                name: "captured.contains { $0 == holder.name }",
                predicate: #Predicate { holder in wanted.contains { $0 == holder.name } }),
            CollectionPredicateCase(
                name: "captured set.allSatisfy { $0 != holder.key }",
                predicate: #Predicate { holder in wantedSet.allSatisfy { $0 != holder.key } }),
            CollectionPredicateCase(name: "tags.allSatisfy { isEmpty }", predicate: #Predicate { $0.tags.allSatisfy { $0.isEmpty } }),
            CollectionPredicateCase(name: "tags.allSatisfy { count < 3 }", predicate: #Predicate { $0.tags.allSatisfy { $0.count < 3 } }),
            CollectionPredicateCase(name: "!tags.allSatisfy { !contains(\\0) }", predicate: #Predicate { !$0.tags.allSatisfy { !$0.contains(nul) } }),
            CollectionPredicateCase(name: "tags.isEmpty", predicate: #Predicate { $0.tags.isEmpty }),
            CollectionPredicateCase(name: "!tags.isEmpty", predicate: #Predicate { !$0.tags.isEmpty }),
            CollectionPredicateCase(name: "tags.count == 2", predicate: #Predicate { $0.tags.count == 2 }),
            CollectionPredicateCase(name: "tags.count > 3", predicate: #Predicate { $0.tags.count > 3 }),
            CollectionPredicateCase(name: "tags.contains(a) && value > 1", predicate: #Predicate { $0.tags.contains("a") && $0.value > 1 }),
            CollectionPredicateCase(name: "tagSet.contains(café)", predicate: #Predicate { $0.tagSet.contains(cafe) }),
            CollectionPredicateCase(name: "tagSet.count > 2", predicate: #Predicate { $0.tagSet.count > 2 }),
            CollectionPredicateCase(name: "tagSet.isEmpty", predicate: #Predicate { $0.tagSet.isEmpty }),
            CollectionPredicateCase(
                name: "tags.allSatisfy { tagSet.contains($0) } (nested, always true)",
                predicate: #Predicate { holder in holder.tags.allSatisfy { holder.tagSet.contains($0) } }),
        ]
    }

    static func optionals() -> [CollectionPredicateCase] {
        let fallback = ["a"]
        let none: [String] = []
        return [
            CollectionPredicateCase(name: "maybeTags == nil", predicate: #Predicate { $0.maybeTags == nil }),
            CollectionPredicateCase(name: "maybeTags != nil", predicate: #Predicate { $0.maybeTags != nil }),
            CollectionPredicateCase(name: "maybeTags?.contains(a) == true", predicate: #Predicate { $0.maybeTags?.contains("a") == true }),
            CollectionPredicateCase(name: "maybeTags?.contains(a) != true", predicate: #Predicate { $0.maybeTags?.contains("a") != true }),
            CollectionPredicateCase(name: "maybeTags?.contains(a) == false", predicate: #Predicate { $0.maybeTags?.contains("a") == false }),
            CollectionPredicateCase(name: "maybeTags?.isEmpty ?? true", predicate: #Predicate { $0.maybeTags?.isEmpty ?? true }),
            CollectionPredicateCase(name: "(maybeTags?.count ?? 0) > 1", predicate: #Predicate { ($0.maybeTags?.count ?? 0) > 1 }),
            CollectionPredicateCase(
                name: "maybeTags?.contains { starts(with: C) } == true",
                predicate: #Predicate { $0.maybeTags?.contains { $0.starts(with: "C") } == true }),
            CollectionPredicateCase(
                name: "maybeTags?.allSatisfy { !isEmpty } ?? false",
                predicate: #Predicate { $0.maybeTags?.allSatisfy { !$0.isEmpty } ?? false }),
            CollectionPredicateCase(name: "(maybeTags ?? [a]).contains(a)", predicate: #Predicate { ($0.maybeTags ?? fallback).contains("a") }),
            CollectionPredicateCase(name: "(maybeTags ?? []).isEmpty", predicate: #Predicate { ($0.maybeTags ?? none).isEmpty }),
            CollectionPredicateCase(
                name: "holder in tags.contains { t in holder.maybeTags?.contains(t) == true } (nested)",
                predicate: #Predicate { holder in holder.tags.contains { t in holder.maybeTags?.contains(t) == true } }),
        ]
    }

    static func numbers() -> [CollectionPredicateCase] {
        let big = Int.max
        let small = Int.min
        let lowest: Int8 = -128
        return [
            CollectionPredicateCase(name: "numbers.contains(1) (not 10 or 12)", predicate: #Predicate { $0.numbers.contains(1) }),
            CollectionPredicateCase(name: "numbers.contains(0)", predicate: #Predicate { $0.numbers.contains(0) }),
            CollectionPredicateCase(name: "numbers.contains(Int.max)", predicate: #Predicate { $0.numbers.contains(big) }),
            CollectionPredicateCase(name: "numbers.contains(Int.min)", predicate: #Predicate { $0.numbers.contains(small) }),
            CollectionPredicateCase(name: "numbers.contains(-3)", predicate: #Predicate { $0.numbers.contains(-3) }),
            CollectionPredicateCase(name: "numbers.contains(value) (json_each has a value column)", predicate: #Predicate { $0.numbers.contains($0.value) }),
            CollectionPredicateCase(name: "numbers.contains { $0 > 5 }", predicate: #Predicate { $0.numbers.contains { $0 > 5 } }),
            CollectionPredicateCase(name: "numbers.contains { $0 % 2 == 0 }", predicate: #Predicate { $0.numbers.contains { $0 % 2 == 0 } }),
            CollectionPredicateCase(name: "numbers.contains { $0 == value }", predicate: #Predicate { holder in holder.numbers.contains { $0 == holder.value } }),
            CollectionPredicateCase(name: "numbers.allSatisfy { $0 >= 0 }", predicate: #Predicate { $0.numbers.allSatisfy { $0 >= 0 } }),
            CollectionPredicateCase(name: "numbers.count == 1", predicate: #Predicate { $0.numbers.count == 1 }),
            CollectionPredicateCase(name: "bytes.contains(-128)", predicate: #Predicate { $0.bytes.contains(lowest) }),
            CollectionPredicateCase(name: "bytes.contains { $0 > 100 }", predicate: #Predicate { $0.bytes.contains { $0 > 100 } }),
            CollectionPredicateCase(name: "bytes.allSatisfy { $0 < 0 }", predicate: #Predicate { $0.bytes.allSatisfy { $0 < 0 } }),
            CollectionPredicateCase(name: "doubles.contains(0) (and -0.0)", predicate: #Predicate { $0.doubles.contains(0) }),
            CollectionPredicateCase(name: "doubles.contains(-0.0)", predicate: #Predicate { $0.doubles.contains(-0.0) }),
            CollectionPredicateCase(name: "doubles.contains(0.1)", predicate: #Predicate { $0.doubles.contains(0.1) }),
            CollectionPredicateCase(name: "doubles.contains(0.30000000000000004)", predicate: #Predicate { $0.doubles.contains(0.30000000000000004) }),
            CollectionPredicateCase(name: "doubles.contains(0.3) (no match)", predicate: #Predicate { $0.doubles.contains(0.3) }),
            CollectionPredicateCase(name: "doubles.contains(1)", predicate: #Predicate { $0.doubles.contains(1) }),
            CollectionPredicateCase(name: "doubles.contains(1e300)", predicate: #Predicate { $0.doubles.contains(1e300) }),
            CollectionPredicateCase(name: "doubles.contains(2^53)", predicate: #Predicate { $0.doubles.contains(9_007_199_254_740_992) }),
            CollectionPredicateCase(name: "doubles.contains { $0 > 1 }", predicate: #Predicate { $0.doubles.contains { $0 > 1 } }),
            CollectionPredicateCase(name: "doubles.contains { $0 * 3 > 4.5 }", predicate: #Predicate { $0.doubles.contains { $0 * 3 > 4.5 } }),
            CollectionPredicateCase(name: "doubles.contains { $0 / 2 == 0.5 }", predicate: #Predicate { $0.doubles.contains { $0 / 2 == 0.5 } }),
            CollectionPredicateCase(name: "doubles.allSatisfy { $0 < 10 }", predicate: #Predicate { $0.doubles.allSatisfy { $0 < 10 } }),
        ]
    }

    static func values() -> [CollectionPredicateCase] {
        let someID = CollectionSeed.ids[2]
        let middle = CollectionSeed.ids[3]
        let active = Status.active
        let banned = Status.banned
        let high = Level.high
        return [
            CollectionPredicateCase(name: "flags.contains(true)", predicate: #Predicate { $0.flags.contains(true) }),
            CollectionPredicateCase(name: "flags.contains(false)", predicate: #Predicate { $0.flags.contains(false) }),
            CollectionPredicateCase(name: "flags.allSatisfy { $0 }", predicate: #Predicate { $0.flags.allSatisfy { $0 } }),
            CollectionPredicateCase(name: "flags.contains { !$0 }", predicate: #Predicate { $0.flags.contains { !$0 } }),
            CollectionPredicateCase(name: "ids.contains(someID)", predicate: #Predicate { $0.ids.contains(someID) }),
            CollectionPredicateCase(name: "ids.contains { $0 < middle }", predicate: #Predicate { $0.ids.contains { $0 < middle } }),
            CollectionPredicateCase(
                name: "ids.contains { uuidString starts with 50 }",
                predicate: #Predicate { $0.ids.contains { $0.uuidString.starts(with: "50") } }),
            CollectionPredicateCase(name: "statuses.contains(.active)", predicate: #Predicate { $0.statuses.contains(active) }),
            CollectionPredicateCase(name: "statuses.contains { $0 == .banned }", predicate: #Predicate { $0.statuses.contains { $0 == banned } }),
            CollectionPredicateCase(
                name: "statuses.contains { rawValue == pending }",
                predicate: #Predicate { $0.statuses.contains { $0.rawValue == "pending" } }),
            CollectionPredicateCase(name: "statuses.allSatisfy { $0 != .banned }", predicate: #Predicate { $0.statuses.allSatisfy { $0 != banned } }),
            CollectionPredicateCase(name: "levels.contains(.high)", predicate: #Predicate { $0.levels.contains(high) }),
            CollectionPredicateCase(name: "levels.count == 2", predicate: #Predicate { $0.levels.count == 2 }),
        ]
    }
}
