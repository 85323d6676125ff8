import Foundation
import Testing
@testable import LiteRecord

/// `close()` (and `cleanUp()`) called from inside a `write` closure: it would
/// wait for the write it is part of, so it is refused with a message that
/// says so, and the write commits as if it had not been called.
@Suite(.tags(.threads)) struct CloseInsideWriteTests {
    @Test func closeInsideWriteIsRefusedAndTheWriteCommits() async throws {
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(storeAt: folder.file("People.sqlite"), entities: [HandWrittenPerson.self])
        let refusal = Shared<LiteRecordError?>(nil)
        try await stack.write { context in
            context.insert(HandWrittenPerson(name: "Ann", age: 31))
            do {
                try stack.close()
            } catch let error as LiteRecordError {
                refusal.value = error
            }
            context.insert(HandWrittenPerson(name: "Bob", age: 42))
        }
        let error = try #require(refusal.value, "close() inside write returned without an error")
        #expect(error.kind == .storeUnavailable)
        #expect(error.message.contains("close() was called inside a write"), "\(error)")
        #expect(error.message.contains("Nothing was closed"), "\(error)")
        #expect(stack.isOpen)
        #expect(try await stack.read { context in try HandWrittenPerson.count(in: context) } == 2)
        try stack.close()
        #expect(!stack.isOpen)
    }

    @Test func cleanUpInsideWriteIsRefusedAndKeepsTheDefaultStack() async throws {
        let folder = try TemporaryDirectory()
        try await RecordStack.withDefault(nil) {
            try RecordStack.setup(storeAt: folder.file("People.sqlite"), entities: [HandWrittenPerson.self])
            let refusal = Shared<LiteRecordError?>(nil)
            try await RecordStack.write { context in
                context.insert(HandWrittenPerson(name: "Ann", age: 31))
                do {
                    try RecordStack.cleanUp()
                } catch let error as LiteRecordError {
                    refusal.value = error
                }
            }
            #expect(refusal.value?.kind == .storeUnavailable)
            #expect(RecordStack.isSetUp, "cleanUp() removed the default stack although it did not close it")
            #expect(try await RecordStack.read { context in try HandWrittenPerson.count(in: context) } == 1)
            try RecordStack.cleanUp()
            #expect(!RecordStack.isSetUp)
        }
    }
}
