import Foundation
import Testing
@testable import LiteRecord

/// `RecordStack.memoryMappedReadSize`: off by default, and when set, the
/// reader connections of stacks opened afterwards map the file — and read
/// what the writer saved, before and after further commits.
@Suite(.serialized) struct MemoryMappedReadTests {
    private func readerMapSize(_ stack: RecordStack) throws -> SQLValue? {
        try stack.store.withReaderPassingCallerErrors("reading mmap_size") { try $0.scalar("PRAGMA mmap_size") }
    }

    @Test func offByDefaultAndOnForStacksOpenedAfterItIsSet() async throws {
        let folder = try TemporaryDirectory()
        #expect(RecordStack.memoryMappedReadSize == 0)
        let plain = try RecordStack(storeAt: folder.file("plain.sqlite"), entities: [MacroPerson.self])
        #expect(try readerMapSize(plain) == .integer(0))

        RecordStack.memoryMappedReadSize = 8 << 20
        defer { RecordStack.memoryMappedReadSize = 0 }
        let mapped = try RecordStack(storeAt: folder.file("mapped.sqlite"), entities: [MacroPerson.self])
        #expect(try readerMapSize(mapped) == .integer(8 << 20))
        // A stack already open keeps the way it was opened.
        #expect(try readerMapSize(plain) == .integer(0))

        // Mapped readers see every commit, as others do.
        for round in 1...3 {
            try await mapped.write { context in
                for index in 0..<200 {
                    let person = MacroPerson()
                    person.name = "p\(round)-\(index)"
                    context.insert(person)
                }
            }
            let count = try await mapped.read { try MacroPerson.count(in: $0) }
            #expect(count == round * 200)
        }
        try mapped.close()
        try plain.close()
    }

    @Test func aNegativeSizeCountsAsOff() {
        defer { RecordStack.memoryMappedReadSize = 0 }
        RecordStack.memoryMappedReadSize = -1
        #expect(RecordStack.memoryMappedReadSize == 0)
    }
}
