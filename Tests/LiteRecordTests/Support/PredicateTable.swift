import Foundation
import LiteRecord

/// The predicates of the translation table, grouped by what they exercise.
/// Each `#Predicate` is its own expression (one big one would defeat the type
/// checker).
enum PredicateTable {
    static func comparisons() -> [PredicateCase] {
        [
            PredicateCase(name: "age > 30", predicate: #Predicate { $0.age > 30 }),
            PredicateCase(name: "18 <= age < 65", predicate: #Predicate { $0.age >= 18 && $0.age < 65 }),
            PredicateCase(name: "age == 42", predicate: #Predicate { $0.age == 42 }),
            PredicateCase(name: "age != 42", predicate: #Predicate { $0.age != 42 }),
            PredicateCase(name: "!(age > 50)", predicate: #Predicate { !($0.age > 50) }),
            PredicateCase(name: "score <= 0", predicate: #Predicate { $0.score <= 0 }),
            PredicateCase(name: "score == -0.0", predicate: #Predicate { $0.score == -0.0 }),
            PredicateCase(name: "isActive", predicate: #Predicate { $0.isActive }),
            PredicateCase(name: "!isActive", predicate: #Predicate { !$0.isActive }),
            PredicateCase(name: "isActive == false && age > 20", predicate: #Predicate { $0.isActive == false && $0.age > 20 }),
            PredicateCase(name: "isActive || score > 50", predicate: #Predicate { $0.isActive || $0.score > 50 }),
            PredicateCase(
                name: "nested and/or/not",
                predicate: #Predicate { ($0.age > 20 && ($0.name.contains("a") || $0.nickname == nil)) && !$0.isActive }),
            PredicateCase(name: "ternary", predicate: #Predicate { $0.age > 30 ? $0.isActive : !$0.isActive }),
            PredicateCase(name: "small > 100", predicate: #Predicate { $0.small > 100 }),
            PredicateCase(name: "weight < 50", predicate: #Predicate { $0.weight < 50 }),
        ]
    }

    static func strings() -> [PredicateCase] {
        let emile = "Émile"
        let kelvin = "K"
        let empty = ""
        return [
            PredicateCase(name: "name == Ann", predicate: #Predicate { $0.name == "Ann" }),
            PredicateCase(name: "name == Émile (either spelling)", predicate: #Predicate { $0.name == emile }),
            PredicateCase(name: "name == K (KELVIN SIGN too)", predicate: #Predicate { $0.name == kelvin }),
            PredicateCase(name: "name != Ann", predicate: #Predicate { $0.name != "Ann" }),
            PredicateCase(name: "name < M", predicate: #Predicate { $0.name < "M" }),
            PredicateCase(name: "name >= émile", predicate: #Predicate { $0.name >= "émile" }),
            PredicateCase(name: "name > 9", predicate: #Predicate { $0.name > "9" }),
            PredicateCase(name: "name contains an", predicate: #Predicate { $0.name.contains("an") }),
            PredicateCase(name: "name contains e (not é)", predicate: #Predicate { $0.name.contains("e") }),
            PredicateCase(name: "name contains é", predicate: #Predicate { $0.name.contains("é") }),
            PredicateCase(name: "name contains \\n (not in CR LF)", predicate: #Predicate { $0.name.contains("\n") }),
            PredicateCase(name: "name contains empty", predicate: #Predicate { $0.name.contains(empty) }),
            PredicateCase(name: "name starts with A", predicate: #Predicate { $0.name.starts(with: "A") }),
            PredicateCase(name: "name starts with E (not É)", predicate: #Predicate { $0.name.starts(with: "E") }),
            PredicateCase(name: "name starts with empty", predicate: #Predicate { $0.name.starts(with: empty) }),
            PredicateCase(name: "name has quote", predicate: #Predicate { $0.name.contains("'") }),
            PredicateCase(name: "name has NUL", predicate: #Predicate { $0.name.contains("\u{0}") }),
            PredicateCase(name: "name.count > 5", predicate: #Predicate { $0.name.count > 5 }),
            PredicateCase(name: "name.isEmpty", predicate: #Predicate { $0.name.isEmpty }),
            PredicateCase(name: "\"Anna Zoë\".contains(name)", predicate: #Predicate { "Anna Zoë".contains($0.name) }),
            PredicateCase(name: "A...M contains name", predicate: #Predicate { ("A"..."M").contains($0.name) }),
        ]
    }

    static func optionals() -> [PredicateCase] {
        let bee: String? = "Bee"
        return [
            PredicateCase(name: "nickname == nil", predicate: #Predicate { $0.nickname == nil }),
            PredicateCase(name: "nickname != nil", predicate: #Predicate { $0.nickname != nil }),
            PredicateCase(name: "nickname == Bee", predicate: #Predicate { $0.nickname == "Bee" }),
            PredicateCase(name: "nickname != Bee (nil included)", predicate: #Predicate { $0.nickname != "Bee" }),
            PredicateCase(name: "!(nickname == Bee)", predicate: #Predicate { !($0.nickname == bee) }),
            PredicateCase(name: "nickname ?? \"\" == \"\"", predicate: #Predicate { ($0.nickname ?? "") == "" }),
            PredicateCase(name: "nickname ?? zzz > m", predicate: #Predicate { ($0.nickname ?? "zzz") > "m" }),
            PredicateCase(name: "nickname?.contains(e) == true", predicate: #Predicate { $0.nickname?.contains("e") == true }),
            PredicateCase(name: "nickname?.contains(e) != true", predicate: #Predicate { $0.nickname?.contains("e") != true }),
            PredicateCase(name: "nickname?.starts(with: B) ?? false", predicate: #Predicate { $0.nickname?.starts(with: "B") ?? false }),
            PredicateCase(name: "nickname?.count == 3", predicate: #Predicate { $0.nickname?.count == 3 }),
            PredicateCase(
                name: "if let nickname, count > 1",
                predicate: #Predicate { if let nickname = $0.nickname { nickname.count > 1 } else { false } }),
            PredicateCase(name: "name < nickname ?? \"\"", predicate: #Predicate { $0.name < ($0.nickname ?? "") }),
            PredicateCase(name: "rank == nil", predicate: #Predicate { $0.rank == nil }),
            PredicateCase(name: "rank != 3", predicate: #Predicate { $0.rank != 3 }),
            PredicateCase(name: "(rank ?? 0) > 2", predicate: #Predicate { ($0.rank ?? 0) > 2 }),
            PredicateCase(name: "rank.flatMap { $0 > 0 } == false", predicate: #Predicate { $0.rank.flatMap { $0 > 0 } == false }),
            PredicateCase(name: "flag == true", predicate: #Predicate { $0.flag == true }),
            PredicateCase(name: "flag != true", predicate: #Predicate { $0.flag != true }),
            PredicateCase(name: "flag ?? false", predicate: #Predicate { $0.flag ?? false }),
        ]
    }

    static func values() -> [PredicateCase] {
        let cutoff = QuerySeed.base
        let low = QuerySeed.base.addingTimeInterval(-3e8)
        let high = QuerySeed.base.addingTimeInterval(2e8)
        let people = QuerySeed.people()
        let someID = people[17].identifier
        let active = Status.active
        let banned = Status.banned
        let seconds = QuerySeed.base.timeIntervalSinceReferenceDate
        return [
            PredicateCase(name: "birthday < cutoff", predicate: #Predicate { $0.birthday < cutoff }),
            PredicateCase(name: "low <= birthday <= high", predicate: #Predicate { $0.birthday >= low && $0.birthday <= high }),
            PredicateCase(
                name: "birthday.timeIntervalSinceReferenceDate > x",
                predicate: #Predicate { $0.birthday.timeIntervalSinceReferenceDate > seconds }),
            PredicateCase(name: "identifier == someID", predicate: #Predicate { $0.identifier == someID }),
            PredicateCase(name: "identifier != someID", predicate: #Predicate { $0.identifier != someID }),
            PredicateCase(name: "identifier < someID", predicate: #Predicate { $0.identifier < someID }),
            PredicateCase(name: "uuidString starts with A", predicate: #Predicate { $0.identifier.uuidString.starts(with: "A") }),
            PredicateCase(name: "status == .active", predicate: #Predicate { $0.status == active }),
            PredicateCase(name: "status != .banned", predicate: #Predicate { $0.status != banned }),
            PredicateCase(name: "status.rawValue == pending", predicate: #Predicate { $0.status.rawValue == "pending" }),
        ]
    }

    static func arithmetic() -> [PredicateCase] {
        [
            PredicateCase(name: "age + 10 > 50", predicate: #Predicate { $0.age + 10 > 50 }),
            PredicateCase(name: "age * 2 - 5 < 40", predicate: #Predicate { $0.age * 2 - 5 < 40 }),
            PredicateCase(name: "age / 7 == 3", predicate: #Predicate { $0.age / 7 == 3 }),
            PredicateCase(name: "age % 5 == 0", predicate: #Predicate { $0.age % 5 == 0 }),
            PredicateCase(name: "age % 4 == -1", predicate: #Predicate { $0.age % 4 == -1 }),
            PredicateCase(name: "-age < -50", predicate: #Predicate { -$0.age < -50 }),
            PredicateCase(name: "score * 2 > 10", predicate: #Predicate { $0.score * 2 > 10 }),
            PredicateCase(name: "score / 4 < 1.5", predicate: #Predicate { $0.score / 4 < 1.5 }),
            PredicateCase(name: "small / 2 > 30", predicate: #Predicate { $0.small / 2 > 30 }),
        ]
    }

    static func membership() -> [PredicateCase] {
        let names = ["Ann", "E\u{301}mile", "\u{212A}", "Null\u{0}byte", "O'Brien", "nobody"]
        let nicknames: [String?] = [nil, "Bee", "é"]
        let noAges: [Int] = []
        let statuses: Set<Status> = [.pending, .banned]
        let adults = 18...30
        let teens = 13..<20
        let fifty = 50...
        let ranks = [1, 2, 3, 5, 8]
        return [
            PredicateCase(name: "names.contains(name)", predicate: #Predicate { names.contains($0.name) }),
            PredicateCase(name: "nicknames (with nil).contains(nickname)", predicate: #Predicate { nicknames.contains($0.nickname) }),
            PredicateCase(name: "!nicknames.contains(nickname)", predicate: #Predicate { !nicknames.contains($0.nickname) }),
            PredicateCase(name: "[].contains(age)", predicate: #Predicate { noAges.contains($0.age) }),
            PredicateCase(name: "statuses.contains(status)", predicate: #Predicate { statuses.contains($0.status) }),
            PredicateCase(name: "(18...30).contains(age)", predicate: #Predicate { (18...30).contains($0.age) }),
            PredicateCase(name: "(10..<20).contains(age)", predicate: #Predicate { (10..<20).contains($0.age) }),
            PredicateCase(name: "captured 18...30", predicate: #Predicate { adults.contains($0.age) }),
            PredicateCase(name: "captured 13..<20", predicate: #Predicate { teens.contains($0.age) }),
            PredicateCase(name: "captured 50...", predicate: #Predicate { fifty.contains($0.age) }),
            PredicateCase(name: "ranks.contains(rank ?? 0)", predicate: #Predicate { ranks.contains($0.rank ?? 0) }),
        ]
    }
}
