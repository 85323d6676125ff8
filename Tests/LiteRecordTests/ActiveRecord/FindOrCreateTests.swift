import Foundation
import Testing
import LiteRecord

/// `findFirstOrCreate` finds, or creates exactly once — also when writers race.
@Suite struct FindOrCreateTests {
    @Test func findsOrCreatesAndRegisters() throws {
        let stack = try RecordStack(inMemoryWith: [QueryTag.self])
        let context = stack.newContext()
        let created = try QueryTag.findFirstOrCreate(byAttribute: "label", withValue: "swift", in: context)
        #expect(created.label == "swift")
        #expect(created.awakened && created.uses == 1, "awakeFromInsert ran before the insert")
        #expect(created.recordID != nil && created.context === context)
        #expect(!context.hasChanges, "the new record is already stored")
        #expect(try QueryTag.findFirstOrCreate(byAttribute: "label", withValue: "swift", in: context) === created)

        let other = stack.newContext()
        let found = try QueryTag.findFirstOrCreate(byAttribute: "label", withValue: "swift", in: other)
        #expect(found.recordID == created.recordID && found.uses == 1)
        #expect(try QueryTag.count(in: other) == 1)
    }

    @Test func refusesWhatCannotBeStored() throws {
        let stack = try RecordStack(inMemoryWith: [QueryTag.self])
        let context = stack.newContext()
        #expect {
            try QueryTag.findFirstOrCreate(byAttribute: "lable", withValue: "typo", in: context)
        } throws: { ($0 as? LiteRecordError)?.kind == .unknownAttribute }
        #expect {
            try QueryTag.findFirstOrCreate(byAttribute: "label", withValue: nil, in: context)
        } throws: { ($0 as? LiteRecordError)?.kind == .constraintViolation }
        #expect(try QueryTag.count(in: context) == 0)
    }

    /// -0.0 is found as 0.0 (SQL and Swift compare them equal), but creating a
    /// record holding it would store +0.0: refused, never changed silently.
    @Test func refusesToCreateWithAValueThatWouldChange() throws {
        let stack = try RecordStack(inMemoryWith: [QueryPerson.self])
        let context = stack.newContext()
        let error = expectError(.validationFailed) {
            try QueryPerson.findFirstOrCreate(byAttribute: "score", withValue: -0.0, in: context)
        }
        #expect(error?.message.contains("QueryPerson.score") == true, "\(String(describing: error))")
        #expect(try QueryPerson.count(in: context) == 0)

        let zero = try QueryPerson.findFirstOrCreate(byAttribute: "score", withValue: 0.0, in: context)
        #expect(try QueryPerson.findFirstOrCreate(byAttribute: "score", withValue: -0.0, in: context) === zero)
    }

    /// Two stacks — two connections, as two processes would have — on one
    /// file, racing for the same values of an attribute that has no unique
    /// index: only the write transaction keeps them from duplicating.
    @Test func twoStacksRacingNeverDuplicate() async throws {
        let folder = TemporaryDirectory.root.appendingPathComponent("literecord-race-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("race.sqlite")
        let first = try RecordStack(storeAt: url, entities: [QueryPerson.self, QueryTag.self])
        let second = try RecordStack(storeAt: url, entities: [QueryPerson.self, QueryTag.self])
        let names = (0..<150).map { "name \($0)" }

        try await withThrowingTaskGroup(of: Void.self) { group in
            for (stack, order) in [(first, names), (second, names.reversed())] {
                group.addTask {
                    let context = stack.newContext()
                    for name in order {
                        let person = try QueryPerson.findFirstOrCreate(byAttribute: "name", withValue: name, in: context)
                        #expect(person.name == name)
                    }
                }
            }
            try await group.waitForAll()
        }

        let context = first.newContext()
        #expect(try QueryPerson.count(in: context) == names.count)
        let counts = try QueryPerson.aggregate(.count, of: \.age, groupedBy: \.name, in: context)
        #expect(counts.count == names.count && counts.values.allSatisfy { $0 == 1 })
        try first.close()
        try second.close()
    }

    /// Many tasks on one stack, through `write`, on a unique attribute.
    @Test func concurrentWritesOnOneStackNeverDuplicate() async throws {
        let stack = try RecordStack(inMemoryWith: [QueryTag.self])
        let labels = (0..<40).map { "label \($0 % 10)" }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for label in labels {
                group.addTask {
                    _ = try await stack.write { context in
                        try QueryTag.findFirstOrCreate(byAttribute: "label", withValue: label, in: context).recordID
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try QueryTag.count(in: stack.newContext()) == 10)
    }
}
