import Foundation
import Testing
@testable import LiteRecord

/// Versions of one entity for the migrations below: `label` becomes optional
/// (a table rebuild), then the entity is renamed.
enum IDsBefore {
    final class Token: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] { [attr("label", .string)] }
    }
}

enum IDsRebuilt {
    final class Token: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] { [attr("label", .string, optional: true)] }
    }
}

enum IDsRenamed {
    final class Coin: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var entityOriginalName: String? { "Token" }
        static var attributes: [AttributeDescription] { [attr("label", .string, optional: true)] }
    }
}

/// A record id is never handed out twice in one store
/// (Docs/Internals/Invariants.md, "Record ids are never reused": optimistic
/// locking holds only if a record id and version never name two rows), so a
/// stale object's save can never land in another record's row.
@Suite(.tags(.threads)) struct RecordIDReuseTests {
    /// Saves `count` people named `0`, `1`, … and returns their row ids.
    private func insertPeople(_ count: Int, from first: Int = 0, in context: RecordContext) throws -> [Int64] {
        let people = (first..<first + count).map { MacroPerson(name: "\($0)", age: $0) }
        for person in people { context.insert(person) }
        try context.save()
        return try people.map { try #require($0.recordID?.rowID) }
    }

    private func newID(in stack: RecordStack) throws -> Int64 {
        try #require(try insertPeople(1, from: 1_000, in: stack.newContext()).first)
    }

    /// Tests that see the library only through its public API spell the
    /// table by `StoreFormatNames`: it must stay the store's own name.
    @Test func testsSpellTheRecordIDTableAsTheStoreNamesIt() {
        #expect(StoreFormatNames.recordIDTable == Model.recordIDTable)
    }

    @Test func aStaleObjectOfAnotherStackNeverWritesIntoTheNewcomersRow() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("shared.sqlite")
        // Two stacks on one file: two processes as far as SQLite is concerned,
        // so neither hears of the other's commits through a merge.
        let holder = try RecordStack(storeAt: url, entities: [MacroPerson.self])
        let other = try RecordStack(storeAt: url, entities: [MacroPerson.self])
        let ids = try insertPeople(2, in: other.newContext())
        let held = holder.newContext()
        let stale = try #require(try MacroPerson.findFirst(byAttribute: "name", withValue: "1", in: held))

        let deleting = other.newContext()
        try #require(try MacroPerson.findFirst(byAttribute: "name", withValue: "1", in: deleting)).delete(in: deleting)
        try deleting.save()
        let newcomer = MacroPerson(name: "newcomer", age: 7)
        let inserting = other.newContext()
        inserting.insert(newcomer)
        try inserting.save()
        #expect(try #require(newcomer.recordID?.rowID) > ids[1])

        stale.age = 99
        let error = try #require(throws: LiteRecordError.self) { try held.save() }
        #expect(error.kind == .conflict, "\(error)")
        let stored = try #require(try MacroPerson.findFirst(byAttribute: "name", withValue: "newcomer", in: other.newContext()))
        #expect(stored.age == 7)
        try holder.close()
        try other.close()
    }

    @Test func deletingTheHighestRowFreesNoID() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let context = stack.newContext()
        let ids = try insertPeople(3, in: context)
        try #require(try MacroPerson.findFirst(byAttribute: "name", withValue: "2", in: context)).delete(in: context)
        try context.save()
        #expect(try newID(in: stack) > ids[2])
    }

    @Test func deleteAllAndTruncateAllFreeNoID() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        var ids = try insertPeople(3, in: stack.newContext())
        #expect(try MacroPerson.deleteAll(matching: #Predicate { $0.age >= 1 }, in: stack.newContext()) == 2)
        let afterDeleteAll = try newID(in: stack)
        #expect(afterDeleteAll > ids[2])
        ids = try insertPeople(2, from: 10, in: stack.newContext())
        #expect(try MacroPerson.truncateAll(in: stack.newContext()) == 4)
        #expect(try newID(in: stack) > ids[1])
    }

    @Test(arguments: [false, true])
    func reopeningAndVacuumFreeNoID(vacuum: Bool) throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("ids.sqlite")
        var stack = try RecordStack(storeAt: url, entities: [MacroPerson.self])
        let context = stack.newContext()
        let ids = try insertPeople(3, in: context)
        for person in try MacroPerson.findAll(in: context) where person.name != "0" { try person.delete(in: context) }
        try context.save()
        try stack.close()
        if vacuum {
            let connection = try Connection(path: url.path)
            try connection.execute("VACUUM")
            connection.close()
        }
        stack = try RecordStack(storeAt: url, entities: [MacroPerson.self])
        #expect(try newID(in: stack) > ids[2])
        try stack.close()
    }

    @Test func migrationsThatRebuildOrRenameTheTableFreeNoID() throws {
        let store = try TemporaryStore()
        defer { store.cleanUp() }
        try store.write([IDsBefore.Token.self], ["a", "b", "c"].map { IDsBefore.Token(["label": .text($0)]) })
        try store.inspect { try $0.execute("DELETE FROM \"Token\" WHERE \"Z_PK\" = 3") }

        var stack = try store.open([IDsRebuilt.Token.self])
        #expect(stack.lastMigrationReport?.rebuiltTables == ["Token"])
        var context = stack.newContext()
        let rebuilt = IDsRebuilt.Token(["label": .text("d")])
        context.insert(rebuilt)
        try context.save()
        #expect(try #require(rebuilt.recordID?.rowID) == 4)
        try rebuilt.delete(in: context)
        try context.save()
        try stack.close()

        stack = try store.open([IDsRenamed.Coin.self])
        #expect(stack.lastMigrationReport?.renamedTables.isEmpty == false)
        context = stack.newContext()
        let renamed = IDsRenamed.Coin(["label": .text("e")])
        context.insert(renamed)
        try context.save()
        #expect(try #require(renamed.recordID?.rowID) == 5)
        try stack.close()
    }

    @Test func aSaveReadsAndWritesTheMarkOncePerTable() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let context = stack.newContext()
        for index in 0..<50 { context.insert(MacroPerson(name: "\(index)", age: index)) }
        let (_, statements) = try stack.recordingSQL { try context.save() }
        let marks = statements.filter { $0.contains(Model.recordIDTable) }
        #expect(marks.count == 2, "\(marks)")
        #expect(marks.filter { $0.hasPrefix("SELECT") }.count == 1)
        #expect(statements.filter { $0.hasPrefix("INSERT INTO \"Person\"") }.count == 50)
    }

    @Test func findOrCreateTakesANewIDToo() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let context = stack.newContext()
        let ids = try insertPeople(2, in: context)
        try #require(try MacroPerson.findFirst(byAttribute: "name", withValue: "1", in: context)).delete(in: context)
        try context.save()
        let created = try MacroPerson.findFirstOrCreate(byAttribute: "name", withValue: "fresh", in: context)
        #expect(try #require(created.recordID?.rowID) > ids[1])
    }

    /// Turns a store just written into what a LiteRecord before record-id
    /// high-water marks wrote: no such table, layout version 3.
    private static func makeFormat3(_ url: URL) throws {
        let connection = try Connection(path: url.path)
        defer { connection.close() }
        try connection.execute("DROP TABLE IF EXISTS literecord_record_ids")
        try connection.execute("UPDATE literecord_metadata SET value = '3' WHERE key = 'format_version'")
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    @Test(arguments: [MigrationMode.none, .automatic])
    func anOlderStoreIsUpgradedInPlaceAndThenNeverReusesAnID(_ migration: MigrationMode) throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("format3.sqlite")
        let writer = try RecordStack(storeAt: url, entities: [MacroPerson.self])
        let ids = try insertPeople(3, in: writer.newContext())
        try writer.close()
        try Self.makeFormat3(url)

        // A read-only stack reads the older format as it is.
        let reader = try RecordStack(storeAt: url, entities: [MacroPerson.self], readOnly: true)
        #expect(try MacroPerson.findAll(in: reader.newContext()).count == 3)
        try reader.close()

        let stack = try RecordStack(storeAt: url, entities: [MacroPerson.self], migration: migration)
        let context = stack.newContext()
        #expect(try MacroPerson.findAll(in: context).map(\.name).sorted() == ["0", "1", "2"])
        try #require(try MacroPerson.findFirst(byAttribute: "name", withValue: "2", in: context)).delete(in: context)
        try context.save()
        #expect(try newID(in: stack) > ids[2])
        try stack.close()
        let connection = try Connection(path: url.path)
        defer { connection.close() }
        #expect(try connection.storeFormat() == StoreFormat.current)
    }

    // MARK: The id SQLite picks and the id LiteRecord names agree

    /// One workload of saves that insert, delete (the top row among others),
    /// truncate and find-or-create, from a fixed seed; returns every new
    /// row's id in order and the stored mark.
    private func idsOfWorkload(namingEvery: Bool) throws -> (ids: [Int64], mark: Int64?) {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        defer { try? stack.close() }
        stack.store.namesEveryRecordIDFlag.store(namingEvery, ordering: .relaxed)
        let context = stack.newContext()
        var generator = SplitMix(seed: 40)
        var ids: [Int64] = []
        for round in 0..<60 {
            switch generator.next() % 6 {
            case 0, 1:
                ids += try insertPeople(Int(generator.next() % 4) + 1, from: round * 10, in: context)
            case 2:
                // The highest row: its id must not come back.
                let people = try MacroPerson.findAll(in: context)
                if let top = people.max(by: { ($0.recordID?.rowID ?? 0) < ($1.recordID?.rowID ?? 0) }) {
                    context.delete(top)
                    ids += try insertPeople(1, from: round * 10, in: context)
                }
            case 3:
                let people = try MacroPerson.findAll(in: context)
                if !people.isEmpty { context.delete(people[Int(generator.next() % UInt64(people.count))]) }
                try context.save()
            case 4:
                let person = try MacroPerson.findFirstOrCreate(byAttribute: "name", withValue: "fc\(round)", in: context)
                ids.append(try #require(person.recordID?.rowID))
            default:
                if generator.next() % 3 == 0 { _ = try MacroPerson.truncateAll(in: context) }
            }
        }
        let mark = try context.reading("reading the mark") { connection in
            try connection.scalar("SELECT high FROM literecord_record_ids WHERE entity = ?", [.text("MacroPerson")])?.integerValue
        }
        return (ids, mark)
    }

    /// The allocator leaves an id to SQLite only where SQLite picks the one
    /// it would name (the optimization of `RecordIDAllocator`): the same
    /// workload gives the same ids with every id named (the plain path) and
    /// with the optimization, and no id comes back in either.
    @Test func theIdSQLitePicksIsTheIdLiteRecordWouldName() throws {
        let plain = try idsOfWorkload(namingEvery: true)
        let optimized = try idsOfWorkload(namingEvery: false)
        #expect(plain.ids.count > 40, "the workload inserts")
        #expect(optimized.ids == plain.ids, "the optimized path gives the same ids as the plain one")
        #expect(optimized.mark == plain.mark)
        #expect(plain.ids == plain.ids.sorted() && Set(plain.ids).count == plain.ids.count, "no id comes back: \(plain.ids)")
    }
}

/// A small seeded generator, so that the workload above is the same each run.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
