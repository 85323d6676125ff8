import Foundation
import GRDB
import ImportSQLite
import LiteRecord

// MARK: The model (LiteRecord's; the other two write the same tables)

@Entity(name: "Company")
final class Company {
    @Attribute(.unique, importKey: "id") var companyID = 0
    var name = ""
    init() {}
}

@Entity(name: "Person")
final class Person {
    @Attribute(.unique, importKey: "id") var identifier = 0
    var name = ""
    var age = 0
    var score = 0.0
    @Attribute(dateFormat: .unixSeconds) var created = Date()
    var email: String?
    @Relationship var company: Company?
    init() {}
}

// MARK: The data

let n = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 100_000
let runs = 3
let companies = 1000

/// Person `i` of import round `round`, with its company nested.
func object(_ i: Int, _ round: Int, companies: Int = companies) -> [String: Any] {
    [
        "id": i, "name": "Person \(i) r\(round)", "age": 20 + i % 50, "score": Double(i) * 0.5 + Double(round),
        "created": 1_700_000_000 + i, "email": i % 3 == 0 ? NSNull() : "p\(i)@example.com",
        "company": ["id": i % companies, "name": "Company \(i % companies) r\(round)"] as [String: Any],
    ]
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("literecord-import-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

// The starting store: half of the people (the even ids) and half of the
// companies, written by LiteRecord (so all three start from its schema).
let template = folder.appendingPathComponent("template.sqlite")
do {
    let stack = try RecordStack(storeAt: template, entities: [Company.self, Person.self])
    let context = stack.newContext()
    _ = try Person.importObjects(from: stride(from: 0, to: n, by: 2).map { object($0, 0, companies: companies / 2) }, in: context)
    try context.save()
    try stack.close()
}
let json = try JSONSerialization.data(withJSONObject: (0..<n).map { object($0, 1) })
print("import: \(n) JSON objects (\(json.count / 1024) KiB) with a nested company, half of them already stored; median of \(runs) runs")

func freshCopy() throws -> URL {
    let url = folder.appendingPathComponent("run-\(UUID().uuidString).sqlite")
    try FileManager.default.copyItem(at: template, to: url)
    return url
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// Checks what a run left in the store: every person, every company, the
/// values of the second round.
func verify(_ url: URL) throws {
    let db = try RawDatabase(path: url.path)
    let people = try db.scalarInt("SELECT count(*) FROM Person")
    let firms = try db.scalarInt("SELECT count(*) FROM Company")
    let renamed = try db.scalarInt("SELECT count(*) FROM Person WHERE name LIKE '% r1'")
    let linked = try db.scalarInt(
        "SELECT count(*) FROM Person JOIN Company ON Person.company = Company.Z_PK WHERE Person.identifier % 1000 = Company.companyID")
    guard people == n, firms == companies, renamed == n, linked == n else {
        fatalError("wrong result: \(people) people, \(firms) companies, \(renamed) updated, \(linked) linked")
    }
}

// MARK: LiteRecord: importObjects + save

func literecord() throws -> (ms: Double, statements: [String]) {
    let url = try freshCopy()
    let stack = try RecordStack(storeAt: url, entities: [Company.self, Person.self])
    let context = stack.newContext()
    let start = ContinuousClock.now
    let (_, statements) = try stack.recordingSQL {
        _ = try Person.importObjects(from: json, in: context)
        try context.save()
    }
    let elapsed = milliseconds(ContinuousClock.now - start)
    try stack.close()
    try verify(url)
    return (elapsed, statements)
}

// MARK: By hand: JSONSerialization + C upserts

func handWritten() throws -> Double {
    let url = try freshCopy()
    let db = try RawDatabase(path: url.path)
    try db.execute("PRAGMA synchronous = NORMAL")
    _ = try db.scalarInt("SELECT count(*) FROM sqlite_master")
    let start = ContinuousClock.now
    guard let objects = try JSONSerialization.jsonObject(with: json) as? [[String: Any]] else { fatalError("not a JSON array") }
    try db.execute("BEGIN IMMEDIATE")
    let upsertCompany = try db.prepare(
        "INSERT INTO Company (companyID, name) VALUES (?, ?) ON CONFLICT(companyID) DO UPDATE SET name = excluded.name RETURNING Z_PK")
    let upsertPerson = try db.prepare(
        "INSERT INTO Person (identifier, name, age, score, created, email, company) VALUES (?, ?, ?, ?, ?, ?, ?) "
            + "ON CONFLICT(identifier) DO UPDATE SET name = excluded.name, age = excluded.age, score = excluded.score, "
            + "created = excluded.created, email = excluded.email, company = excluded.company")
    var companyKeys: [Int: Int64] = [:]
    for object in objects {
        guard let id = object["id"] as? Int, let name = object["name"] as? String, let age = object["age"] as? Int,
            let score = object["score"] as? Double, let created = object["created"] as? Double,
            let company = object["company"] as? [String: Any], let companyID = company["id"] as? Int,
            let companyName = company["name"] as? String
        else { fatalError("unexpected JSON") }
        let companyKey: Int64
        if let known = companyKeys[companyID] {
            companyKey = known
        } else {
            upsertCompany.reset()
            upsertCompany.bind(Int64(companyID), at: 1)
            upsertCompany.bind(companyName, at: 2)
            _ = try upsertCompany.step()
            companyKey = upsertCompany.int64(0)
            upsertCompany.reset()
            companyKeys[companyID] = companyKey
        }
        upsertPerson.reset()
        upsertPerson.bind(Int64(id), at: 1)
        upsertPerson.bind(name, at: 2)
        upsertPerson.bind(Int64(age), at: 3)
        upsertPerson.bind(score, at: 4)
        upsertPerson.bind(Date(timeIntervalSince1970: created).timeIntervalSinceReferenceDate, at: 5)
        upsertPerson.bind(object["email"] as? String, at: 6)
        upsertPerson.bind(companyKey, at: 7)
        _ = try upsertPerson.step()
    }
    try db.execute("COMMIT")
    let elapsed = milliseconds(ContinuousClock.now - start)
    try verify(url)
    return elapsed
}

// MARK: GRDB: JSONDecoder + records' upsert

struct PersonJSON: Decodable {
    struct CompanyJSON: Decodable {
        let id: Int
        let name: String
    }
    let id: Int
    let name: String
    let age: Int
    let score: Double
    let created: Date
    let email: String?
    let company: CompanyJSON
}

struct CompanyRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "Company"
    enum CodingKeys: String, CodingKey {
        case rowID = "Z_PK", companyID, name
    }
    var rowID: Int64?
    var companyID: Int
    var name: String
}

struct PersonRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "Person"
    var identifier: Int
    var name: String
    var age: Int
    var score: Double
    /// Seconds since 2001, as LiteRecord stores a `Date`.
    var created: Double
    var email: String?
    var company: Int64
}

func grdb() throws -> Double {
    let url = try freshCopy()
    let queue = try DatabaseQueue(path: url.path)
    try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
    let start = ContinuousClock.now
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .secondsSince1970
    let people = try decoder.decode([PersonJSON].self, from: json)
    try queue.write { db in
        var companyKeys: [Int: Int64] = [:]
        for person in people {
            let companyKey: Int64
            if let known = companyKeys[person.company.id] {
                companyKey = known
            } else {
                let record = try CompanyRecord(rowID: nil, companyID: person.company.id, name: person.company.name)
                    .upsertAndFetch(db, onConflict: ["companyID"])
                guard let rowID = record.rowID else { fatalError("no Z_PK returned") }
                companyKey = rowID
                companyKeys[person.company.id] = rowID
            }
            _ = try PersonRecord(
                identifier: person.id, name: person.name, age: person.age, score: person.score,
                created: person.created.timeIntervalSinceReferenceDate, email: person.email, company: companyKey
            ).upsertAndFetch(db, onConflict: ["identifier"])
        }
    }
    let elapsed = milliseconds(ContinuousClock.now - start)
    try verify(url)
    return elapsed
}

// MARK: Running

var results: [String: [Double]] = [:]
var statements: [String] = []
for _ in 0..<runs {
    let (ms, recorded) = try literecord()
    results["literecord", default: []].append(ms)
    statements = recorded
    results["hand-written", default: []].append(try handWritten())
    results["grdb-records", default: []].append(try grdb())
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
let baseline = median(results["hand-written"] ?? [1])
for engine in ["hand-written", "grdb-records", "literecord"] {
    let values = results[engine] ?? []
    print(String(format: "%-13@ median %7.0f ms  %.2f× hand-written  (runs: %@)", engine as NSString, median(values),
                 median(values) / baseline, values.map { String(format: "%.0f", $0) }.joined(separator: ", ") as NSString))
}
let selects = statements.filter { $0.hasPrefix("SELECT") }.count
let writes = statements.filter { $0.hasPrefix("INSERT") || $0.hasPrefix("UPDATE") }.count
print("literecord statements: \(selects) SELECT lookups (batches of ≤ 999 keys per entity), \(writes) INSERT/UPDATE, \(statements.count) in all")
