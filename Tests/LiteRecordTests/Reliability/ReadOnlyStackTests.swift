import Foundation
import Testing
import LiteRecord

/// `RecordStack(storeAt:entities:readOnly: true)`: fetches work, every write
/// is refused with `.readOnlyStore`, and the file is left byte-identical,
/// even on a read-only mount.
@Suite struct ReadOnlyStackTests {
    static func makeStore(at url: URL, rows: Int = 5) throws {
        let stack = try RecordStack(storeAt: url, entities: [HandWrittenNote.self])
        let context = stack.newContext()
        for index in 0..<rows { context.insert(HandWrittenNote(text: "note \(index)")) }
        try context.save()
        try stack.close()
    }

    /// Reads everything, then tries every kind of write.
    static func exercise(_ url: URL) throws {
        let stack = try RecordStack(storeAt: url, entities: [HandWrittenNote.self], readOnly: true)
        #expect(stack.isReadOnly)
        let context = stack.newContext()
        #expect(try HandWrittenNote.count(in: context) == 5)
        #expect(try HandWrittenNote.findAll(in: context).map(\.text).sorted().first == "note 0")

        let notes = try HandWrittenNote.findAll(in: context)
        notes[0].text = "changed"
        context.insert(HandWrittenNote(text: "new"))
        let error = try #require(throws: LiteRecordError.self) { try context.save() }
        #expect(error.kind == .readOnlyStore)
        #expect(error.message.contains(url.path) && error.message.contains("read-only"), "\(error.message)")
        #expect(context.hasChanges, "the refused save keeps the context's changes")
        #expect(throws: LiteRecordError.self) { _ = try HandWrittenNote.truncateAll(in: stack.newContext()) }
        try stack.close()
    }

    @Test func readsWorkWritesAreRefusedAndTheFileIsUntouched() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("readonly.sqlite")
        try Self.makeStore(at: url)
        let before = Reliability.snapshot(url)
        try Self.exercise(url)
        let stack = try RecordStack(storeAt: url, entities: [HandWrittenNote.self], readOnly: true)
        #expect(try await stack.read { context in try HandWrittenNote.count(in: context) } == 5)
        let error = await #expect(throws: LiteRecordError.self) {
            try await stack.write { context in context.insert(HandWrittenNote(text: "written")) }
        }
        #expect(error?.kind == .readOnlyStore)
        try stack.close()
        #expect(Reliability.snapshot(url) == before, "the file changed")
        #expect(Reliability.companions(of: url).isEmpty, "left \(Reliability.companions(of: url)) beside the store")
    }

    @Test func opensOnAReadOnlyMount() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("mounted.sqlite")
        try Self.makeStore(at: url)
        let before = Reliability.snapshot(url)
        let mounted = try Reliability.withReadOnlyView(of: folder.url) { view in
            let viewURL = view.appendingPathComponent("mounted.sqlite")
            // Read-write cannot open it; the error says why and where.
            let error = try #require(throws: LiteRecordError.self) {
                try RecordStack(storeAt: viewURL, entities: [HandWrittenNote.self])
            }
            #expect(error.message.contains(viewURL.path), "\(error.message)")
            try Self.exercise(viewURL)
            Reliability.report("read-only open: a store on a read-only bind mount was read; the read-write open failed with \"\(error.message)\"")
        }
        if !mounted { try Self.exercise(url) }
        #expect(Reliability.snapshot(url) == before, "the file changed")
        #expect(Reliability.companions(of: url).isEmpty)
    }

    @Test func followsAWriterThatHasTheStoreOpen() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("shared.sqlite")
        try Self.makeStore(at: url)
        let writer = try RecordStack(storeAt: url, entities: [HandWrittenNote.self])
        let reader = try RecordStack(storeAt: url, entities: [HandWrittenNote.self], readOnly: true)
        #expect(try HandWrittenNote.count(in: reader.newContext()) == 5)
        let context = writer.newContext()
        context.insert(HandWrittenNote(text: "later"))
        try context.save()
        #expect(try HandWrittenNote.count(in: reader.newContext()) == 6, "a reader beside a writer sees its commits")
        try reader.close()
        try writer.close()
        #expect(Reliability.companions(of: url).isEmpty)
    }

    @Test func missingEmptyOrMismatchedStoresAreRefused() throws {
        let folder = try TemporaryDirectory()
        let missing = folder.file("missing.sqlite")
        let error = try #require(throws: LiteRecordError.self) {
            try RecordStack(storeAt: missing, entities: [HandWrittenNote.self], readOnly: true)
        }
        #expect(error.kind == .storeUnavailable && error.message.contains(missing.path), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: missing.path), "nothing was created")

        let other = folder.file("other.sqlite")
        try Self.makeStore(at: other)
        let mismatch = try #require(throws: LiteRecordError.self) {
            try RecordStack(storeAt: other, entities: [HandWrittenPerson.self], readOnly: true)
        }
        #expect(mismatch.kind == .modelMismatch, "\(mismatch)")
    }
}
