import Foundation
import LiteRecord
import LiteRecordTesting
import Testing

/// 60 + 12 test cases run in parallel, each inserting its own rows through the
/// facade; each must see exactly its own.
@Suite(.tags(.threads)) struct ParallelIsolationTests {
    @Test(.inMemoryStack(entities: [Item.self]), arguments: 0..<60)
    @MainActor func eachInMemoryCaseSeesOnlyItsOwnData(case number: Int) async throws {
        let owner = "case-\(number)"
        for index in 0..<(number % 7 + 1) {
            try Item(owner: owner, index: index).save()
            // Let other cases interleave.
            await Task.yield()
        }
        let items = try Item.findAll()
        #expect(items.count == number % 7 + 1)
        #expect(items.allSatisfy { $0.owner == owner })
    }

    @Test(.temporaryStore(entities: [Item.self]), arguments: 0..<12)
    func eachTemporaryStoreCaseSeesOnlyItsOwnData(case number: Int) async throws {
        let owner = "file-\(number)"
        try await RecordStack.write { context in
            for index in 0...number { context.insert(Item(owner: owner, index: index)) }
        }
        let count = try await RecordStack.read { context in try Item.count(in: context) }
        #expect(count == number + 1)
        let url = try #require(try RecordStack.current().storeURL)
        #expect(url.path.contains("LiteRecordTesting-"))
    }
}

@Suite(.inMemoryStack(entities: [Item.self]))
struct SuiteLevelTraitTests {
    @Test @MainActor func first() throws {
        try Item(owner: "first", index: 0).save()
        #expect(try Item.count() == 1)
    }

    @Test @MainActor func second() throws {
        try Item(owner: "second", index: 0).save()
        try Item(owner: "second", index: 1).save()
        #expect(try Item.count() == 2)
    }
}

@Suite struct TraitLifecycleTests {
    @Test func withoutATraitThereIsNoTaskLocalStack() {
        RecordStack.withDefault(nil) {
            #expect(!RecordStack.isSetUp)
        }
    }

    @Test func temporaryStoreFolderIsRemovedAfterTheTest() async throws {
        let trait = TemporaryStoreTrait.temporaryStore(entities: [Item.self])
        let test = try #require(Test.current)
        let seen = URLBox()
        try await trait.provideScope(for: test, testCase: Test.Case.current) {
            let url = try #require(try RecordStack.current().storeURL)
            try await RecordStack.write { context in context.insert(Item(owner: "x", index: 1)) }
            #expect(FileManager.default.fileExists(atPath: url.path))
            seen.set(url.deletingLastPathComponent())
        }
        let folder = try #require(seen.get())
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }

    @Test func inMemoryStackIsClosedAfterTheTest() async throws {
        let trait = InMemoryStackTrait.inMemoryStack(entities: [Item.self])
        let test = try #require(Test.current)
        let seen = StackBox()
        struct Expected: Error {}
        await #expect(throws: Expected.self) {
            try await trait.provideScope(for: test, testCase: Test.Case.current) {
                seen.set(try RecordStack.current())
                throw Expected()
            }
        }
        #expect(seen.get()?.isOpen == false, "closed even though the test threw")
    }

    @Test(.inMemoryStack(entities: [Item.self]))
    @MainActor func recordingSQLSeesTheDefaultStack() throws {
        let item = try Item.create()
        item.owner = "sql"
        let (_, insert) = try recordingSQL { try item.save() }
        #expect(insert.contains { $0.hasPrefix("INSERT INTO \"Item\"") })
        let (_, nothing) = try recordingSQL { try item.save() }
        #expect(nothing.isEmpty)
    }
}

final class URLBox: Sendable {
    private let value = LockedValue<URL?>(nil)
    func set(_ url: URL) { value.set(url) }
    func get() -> URL? { value.get() }
}

final class StackBox: Sendable {
    private let value = LockedValue<RecordStack?>(nil)
    func set(_ stack: RecordStack) { value.set(stack) }
    func get() -> RecordStack? { value.get() }
}

import Synchronization

final class LockedValue<T: Sendable>: Sendable {
    private let mutex: Mutex<T>
    init(_ value: T) { mutex = Mutex(value) }
    func set(_ value: T) { mutex.withLock { $0 = value } }
    func get() -> T { mutex.withLock { $0 } }
}
