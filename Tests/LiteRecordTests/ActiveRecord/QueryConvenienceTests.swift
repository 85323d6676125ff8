import Foundation
import Testing
import LiteRecord

/// The finders around the translator: enumerate, fetch(sql:), deleteAll,
/// checked arithmetic, and the main-context forms.
@Suite struct QueryConvenienceTests {
    let stack: RecordStack
    let context: RecordContext

    init() throws {
        stack = try QuerySeed.stack(count: 300)
        context = stack.newContext()
    }

    private func ids(_ people: [QueryPerson]) -> [Int64] {
        people.map { $0.recordID?.rowID ?? -1 }
    }

    // MARK: enumerate

    @Test func enumerateStreamsInBatchesInOrder() throws {
        let predicate = #Predicate<QueryPerson> { $0.age > 20 }
        let sort = [SortDescriptor(\QueryPerson.nickname), SortDescriptor(\QueryPerson.name, order: .reverse)]
        let expected = try QueryPerson.findAll(matching: predicate, sortedBy: sort, in: context)
        let streaming = stack.newContext()
        var seen: [Int64] = []
        try QueryPerson.enumerate(matching: predicate, sortedBy: sort, batchSize: 7, in: streaming) { person in
            seen.append(person.recordID?.rowID ?? -1)
        }
        #expect(seen == ids(expected))
        #expect(streaming.registeredObjects.isEmpty, "streamed objects are not kept by the context")

        var unsorted: [Int64] = []
        try QueryPerson.enumerate(matching: predicate, batchSize: 0, in: streaming) { unsorted.append($0.recordID?.rowID ?? -1) }
        #expect(unsorted == ids(try QueryPerson.findAll(matching: predicate, in: streaming)))

        var all = 0
        try QueryPerson.enumerate(in: streaming) { _ in all += 1 }
        #expect(all == 300)
    }

    @Test func enumerateHandsBackTheBodysErrorUnchanged() throws {
        struct Stop: Error, Equatable { let at: Int }
        var calls = 0
        #expect(throws: Stop(at: 10)) {
            try QueryPerson.enumerate(batchSize: 4, in: context) { _ in
                calls += 1
                if calls == 10 { throw Stop(at: calls) }
            }
        }
        #expect(calls == 10)
    }

    // MARK: Requests

    @Test func largeCapturedListsAndOddSlices() throws {
        let everyone = try QueryPerson.findAll(in: context)
        for size in [0, 1, 3, 1_000, 5_000] {
            let ages = Array(0..<size)
            let predicate = #Predicate<QueryPerson> { ages.contains($0.age) }
            #expect(ids(try QueryPerson.findAll(matching: predicate, in: context)) == ids(try everyone.filter(predicate)))
        }
        #expect(try context.fetch(FetchRequest<QueryPerson>(fetchLimit: -3)).isEmpty)
        #expect(try context.fetch(FetchRequest<QueryPerson>(fetchOffset: -3)).count == 300)
        #expect(try context.count(FetchRequest<QueryPerson>(fetchLimit: 0)) == 0)
    }

    // MARK: fetch(sql:)

    @Test func fetchSQLBindsArguments() throws {
        let context = try RecordStack(inMemoryWith: [QueryPerson.self]).newContext()
        for (name, age) in [("Ann", 31), ("anne", 45), ("Bob", 50), ("Alf", 20), ("Åsa", 60)] {
            let person = QueryPerson()
            person.name = name
            person.age = age
            context.insert(person)
        }
        try context.save()
        let found = try QueryPerson.fetch(sql: "age > ? AND name LIKE ?", arguments: [30, "A%"], in: context)
        #expect(found.map(\.name) == ["Ann", "anne"])
        #expect(try QueryPerson.fetch(sql: "\"age\" = ?", arguments: [SQLValue.integer(20)], in: context).map(\.name) == ["Alf"])
        #expect {
            try QueryPerson.fetch(sql: "age > ?", arguments: [], in: context)
        } throws: { ($0 as? LiteRecordError)?.kind == .sqlite }
        #expect {
            try QueryPerson.fetch(sql: "score > ?", arguments: [Double.nan], in: context)
        } throws: { ($0 as? LiteRecordError)?.kind == .validationFailed }
        #expect {
            try QueryPerson.fetch(sql: "no_such_column = 1", in: context)
        } throws: { ($0 as? LiteRecordError)?.kind == .sqlite }
    }

    // MARK: deleteAll

    @Test func deleteAllIsOneStatementAndForgetsRegisteredObjects() throws {
        let doomed = try QueryPerson.findAll(matching: #Predicate { $0.age < 10 }, in: context)
        let kept = try QueryPerson.findAll(matching: #Predicate { $0.age >= 10 }, in: context)
        #expect(!doomed.isEmpty && !kept.isEmpty)
        let (deleted, statements) = try stack.recordingSQL {
            try QueryPerson.deleteAll(matching: #Predicate { $0.age < 10 }, in: context)
        }
        #expect(deleted == doomed.count)
        #expect(statements.filter { $0.hasPrefix("DELETE") }.count == 1)
        #expect(doomed.allSatisfy { $0.recordID == nil && $0.context == nil })
        #expect(kept.allSatisfy { $0.recordID != nil && $0.context === context })
        #expect(try QueryPerson.count(in: context) == 300 - doomed.count)
        #expect(!context.hasChanges)
    }

    @Test @MainActor func deleteAllInAWriteReachesTheMainContext() async throws {
        let main = stack.mainContext
        let doomed = try QueryPerson.findAll(matching: #Predicate { $0.isActive }, in: main)
        let kept = try QueryPerson.findAll(matching: #Predicate { !$0.isActive }, in: main)
        let deleted = try await stack.write { background in
            try QueryPerson.deleteAll(matching: #Predicate { $0.isActive }, in: background)
        }
        #expect(deleted == doomed.count)
        #expect(doomed.allSatisfy { $0.context == nil && $0.recordID == nil })
        #expect(kept.allSatisfy { $0.context === main })
        #expect(try QueryPerson.count(matching: #Predicate { $0.isActive }, in: main) == 0)
    }

    // MARK: Checked arithmetic

    @Test func arithmeticFailsWhereSwiftWouldTrap() throws {
        let big = Int.max / 2
        let zero = 0
        let minusOne: Int8 = -1
        let failing: [(String, Predicate<QueryPerson>)] = [
            ("overflow", #Predicate { $0.age * big > 0 }),
            ("Int8 overflow", #Predicate { $0.small + 100 > 0 }),
            ("division by zero", #Predicate { $0.age / zero == 1 }),
            ("remainder by zero", #Predicate { $0.age % zero == 1 }),
            ("negation overflow", #Predicate { -($0.small - 100) > 0 }),
            ("Int8.min / -1", #Predicate { ($0.small - 100) / minusOne > 0 }),
        ]
        for (name, predicate) in failing {
            #expect(throws: LiteRecordError.self, "\(name)") {
                _ = try QueryPerson.findAll(matching: predicate, in: context)
            }
        }
        // Swift never evaluates the right side when the left is false, and
        // neither does the SQL: no row is older than 1,000.
        let shortCircuit = #Predicate<QueryPerson> { $0.age > 1_000 && $0.age * big > 0 }
        #expect(try QueryPerson.findAll(matching: shortCircuit, in: context).isEmpty)
        let orShortCircuit = #Predicate<QueryPerson> { $0.age < 1_000 || $0.age / zero > 0 }
        #expect(try QueryPerson.count(matching: orShortCircuit, in: context) == 300)
    }

    @Test func arithmeticErrorSaysWhy() throws {
        let zero = 0
        do {
            _ = try QueryPerson.findAll(matching: #Predicate { $0.age / zero == 1 }, in: context)
            Issue.record("no error")
        } catch let error as LiteRecordError {
            #expect(error.message.contains("division by zero"))
        }
    }

    // MARK: Main-context forms

    @Test @MainActor func mainContextForms() throws {
        let adults = #Predicate<QueryPerson> { $0.age >= 18 }
        let expected = try QueryPerson.findAll(matching: adults, sortedBy: [SortDescriptor(\.name)], in: context)
        try RecordStack.withDefault(stack) { () throws in
            #expect(ids(try QueryPerson.findAll(matching: adults, sortedBy: [SortDescriptor(\.name)])) == ids(expected))
            #expect(ids(try QueryPerson.findAll(sortedBy: [SortDescriptor(\.age)])).count == 300)
            #expect(try QueryPerson.findFirst(matching: adults, sortedBy: [SortDescriptor(\.name)])?.recordID == expected.first?.recordID)
            #expect(try QueryPerson.count(matching: adults) == expected.count)
            #expect(try QueryPerson.exists(matching: adults))
            #expect(try QueryPerson.fetch(FetchRequest(predicate: adults, fetchLimit: 3)).count == 3)
            #expect(try QueryPerson.fetch(sql: "age >= ?", arguments: [18]).count == expected.count)
            var streamed = 0
            try QueryPerson.enumerate(matching: adults) { _ in streamed += 1 }
            #expect(streamed == expected.count)
            let tag = try QueryTag.findFirstOrCreate(byAttribute: "label", withValue: "main")
            #expect(try QueryTag.findFirstOrCreate(byAttribute: "label", withValue: "main") === tag)
            #expect(try QueryPerson.deleteAll(matching: adults) == expected.count)
            #expect(try QueryPerson.count(matching: adults) == 0)
        }
    }

    @Test @MainActor func mainContextFormsNeedASetUp() throws {
        RecordStack.withDefault(nil) { () -> Void in
            #expect {
                try QueryPerson.count(matching: #Predicate { $0.age > 1 })
            } throws: { ($0 as? LiteRecordError)?.kind == .notSetUp }
        }
    }
}
