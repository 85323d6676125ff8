import Foundation
import Testing
@testable import LiteRecord

/// `RecordStack.backup(to:)` (Docs/Deployment.md, "Backups"): the copy is a store,
/// holds only whole saves while writers keep committing, never replaces a
/// file, and leaves nothing behind when it fails.
@Suite(.tags(.threads)) struct BackupTests {
    static let batch = 10
    static let writers = 4
    static let trials = 20

    /// About 2 MB of people (500 pages), so that a backup takes several steps.
    static func seed(_ stack: RecordStack, rows: Int = 1500) throws {
        let context = stack.newContext()
        let filler = String(repeating: "x", count: 1400)
        for index in 0..<rows {
            context.insert(HandWrittenPerson(name: "seed-\(index)", age: index, email: filler))
        }
        try context.save()
    }

    static func authorsAndBooks(in stack: RecordStack) throws {
        let context = stack.newContext()
        let author = RAuthor("Le Guin")
        let tag = RTag("classic")
        context.insert(author)
        context.insert(tag)
        for title in ["The Dispossessed", "The Left Hand of Darkness"] {
            let book = RBook(title)
            context.insert(book)
            book.author = author
            book.tags = [tag]
        }
        try context.save()
    }

    static let libraryEntities: [any Entity.Type] = [RAuthor.self, RBook.self, RTag.self]

    /// The copy passes `literecord check`'s checks, opens with the same
    /// entities and holds the same objects and relationships.
    static func expectLibraryCopy(at url: URL) throws {
        let check = try StoreCheck(storeAt: url)
        #expect(check.isHealthy, "\(check.problems)")
        let inspection = try StoreInspection(storeAt: url)
        #expect(inspection.journalMode == "wal")
        #expect(Reliability.companions(of: url).isEmpty, "the copy is one file: \(Reliability.companions(of: url))")
        let copy = try RecordStack(storeAt: url, entities: libraryEntities)
        defer { try? copy.close() }
        let context = copy.newContext()
        let books = try RBook.findAll(in: context)
        #expect(Set(books.map(\.title)) == ["The Dispossessed", "The Left Hand of Darkness"])
        #expect(books.allSatisfy { $0.author?.name == "Le Guin" && $0.tags.map(\.label) == ["classic"] })
    }

    @Test func fileStoreCopyIsAStoreWithTheSameEntities() throws {
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(storeAt: folder.file("library.sqlite"), entities: Self.libraryEntities)
        defer { try? stack.close() }
        try Self.authorsAndBooks(in: stack)
        let copy = folder.file("backup.sqlite")
        try stack.backup(to: copy)
        try Self.expectLibraryCopy(at: copy)
    }

    @Test func inMemoryStoreIsSavedToAFile() throws {
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(inMemoryWith: Self.libraryEntities)
        defer { try? stack.close() }
        try Self.authorsAndBooks(in: stack)
        let copy = folder.file("backup.sqlite")
        try stack.backup(to: copy)
        try Self.expectLibraryCopy(at: copy)
    }

    @Test func readOnlyStackIsBackedUp() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("library.sqlite")
        let writer = try RecordStack(storeAt: url, entities: Self.libraryEntities)
        try Self.authorsAndBooks(in: writer)
        try writer.close()
        let stack = try RecordStack(storeAt: url, entities: Self.libraryEntities, readOnly: true)
        defer { try? stack.close() }
        let copy = folder.file("backup.sqlite")
        try stack.backup(to: copy)
        try Self.expectLibraryCopy(at: copy)
    }

    @Test func storeFileIsBackedUpWithoutAStack() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("library.sqlite")
        let stack = try RecordStack(storeAt: url, entities: Self.libraryEntities)
        defer { try? stack.close() }
        try Self.authorsAndBooks(in: stack)
        let copy = folder.file("backup.sqlite")
        try RecordStack.backup(storeAt: url, to: copy)
        try Self.expectLibraryCopy(at: copy)
    }

    @Test(arguments: ["", "-wal", "-journal"])
    func existingDestinationIsRefusedAndLeftUntouched(_ suffix: String) throws {
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
        defer { try? stack.close() }
        let destination = folder.file("backup.sqlite")
        let existing = URL(fileURLWithPath: destination.path + suffix)
        let bytes = Data("precious, not a backup".utf8)
        try bytes.write(to: existing)
        let error = try #require(throws: LiteRecordError.self) { try stack.backup(to: destination) }
        #expect(error.kind == .storeUnavailable)
        #expect(error.message.contains(existing.path), "\(error.message)")
        #expect(error.message.contains("already exists"), "\(error.message)")
        #expect(try Data(contentsOf: existing) == bytes)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(left == [existing.lastPathComponent], "\(left)")
    }

    @Test func destinationInAMissingFolderFailsWithNoFile() throws {
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
        defer { try? stack.close() }
        let destination = folder.url.appendingPathComponent("no-such-folder/backup.sqlite")
        let error = try #require(throws: LiteRecordError.self) { try stack.backup(to: destination) }
        #expect(error.kind == .storeUnavailable)
        #expect(error.message.contains("does not exist"), "\(error.message)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }

    @Test func destinationInAReadOnlyFolderFailsWithNoFile() throws {
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
        defer { try? stack.close() }
        try Self.seed(stack, rows: 10)
        let target = folder.url.appendingPathComponent("target", isDirectory: true)
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
        let ran = try Reliability.withReadOnlyView(of: target) { view in
            let error = try #require(throws: LiteRecordError.self) {
                try stack.backup(to: view.appendingPathComponent("backup.sqlite"))
            }
            #expect(error.kind == .storeUnavailable)
            #expect(error.message.contains("backup.sqlite"), "\(error.message)")
        }
        if !ran {
            // Not root: an ordinary permission stops the backup just as well.
            try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: target.path)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: target.path) }
            #expect(throws: LiteRecordError.self) { try stack.backup(to: target.appendingPathComponent("backup.sqlite")) }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path).isEmpty)
    }

    /// A disk that fills up halfway through the copy: the backup throws and
    /// removes its partial file and the journal it made.
    @Test func backupThatFailsHalfwayLeavesNoPartialFile() throws {
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(storeAt: folder.file("big.sqlite"), entities: [HandWrittenPerson.self])
        defer { try? stack.close() }
        try Self.seed(stack)  // about 2 MB
        let ran = try Reliability.withSmallDisk(bytes: 512 * 1024) { disk in
            let destination = disk.appendingPathComponent("backup.sqlite")
            let error = try #require(throws: LiteRecordError.self) { try stack.backup(to: destination) }
            #expect(error.kind == .storeUnavailable, "\(error)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path).isEmpty)
        }
        if !ran { Reliability.report("SKIPPED \(#function): needs a small tmpfs") }
    }

    @Test func closedStackThrowsStoreUnavailable() throws {
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(storeAt: folder.file("closed.sqlite"), entities: [HandWrittenPerson.self])
        try stack.close()
        let destination = folder.file("backup.sqlite")
        let error = try #require(throws: LiteRecordError.self) { try stack.backup(to: destination) }
        #expect(error.kind == .storeUnavailable)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    /// Inside a write on the same in-memory stack the store's one connection
    /// holds uncommitted changes: the backup refuses rather than copy them.
    @Test func inMemoryBackupInsideAWriteIsRefused() async throws {
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
        defer { try? stack.close() }
        let destination = folder.file("backup.sqlite")
        let error = await #expect(throws: LiteRecordError.self) {
            try await stack.write { context in
                context.insert(HandWrittenPerson(name: "uncommitted", age: 1))
                try context.save()
                try stack.backup(to: destination)
            }
        }
        #expect(error?.message.contains("inside a write") == true, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    /// Four writers commit batches of `batch` rows while backups are taken:
    /// every copy holds whole batches only (its count is a multiple of the
    /// batch), in each of 20 trials. For a file store the backup reads one
    /// snapshot through its own connection; for an in-memory store it reads
    /// through the connection the writers commit through, and each commit
    /// between two steps restarts it.
    @Test(arguments: [false, true])
    func backupTakenWhileFourWritersCommitHoldsWholeBatches(inMemory: Bool) async throws {
        let folder = try TemporaryDirectory()
        let stack =
            inMemory
            ? try RecordStack(inMemoryWith: [HandWrittenPerson.self])
            : try RecordStack(storeAt: folder.file("busy.sqlite"), entities: [HandWrittenPerson.self])
        defer { try? stack.close() }
        try Self.seed(stack)
        let stop = Shared(false)
        let commits = Shared(0)
        let writers = (0..<Self.writers).map { writer in
            Task {
                var number = 0
                while !stop.withLock({ $0 }) {
                    number += 1
                    let label = "w\(writer)-\(number)"
                    try await stack.write { context in
                        for row in 0..<Self.batch { context.insert(HandWrittenPerson(name: label, age: row)) }
                    }
                    commits.withLock { $0 += 1 }
                }
            }
        }
        var counts: [Int] = []
        do {
            for trial in 0..<Self.trials {
                // Let some commits land first, so each backup starts mid-stream.
                let target = commits.withLock { $0 } + Self.writers
                let deadline = ContinuousClock.now + .seconds(10)
                while commits.withLock({ $0 }) < target && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(1))
                }
                let copy = folder.file("backup-\(trial).sqlite")
                try stack.backup(to: copy)
                let (count, partial) = try Self.batches(in: copy)
                counts.append(count)
                #expect(count % Self.batch == 0, "trial \(trial): \(count) rows is not a multiple of \(Self.batch)")
                #expect(partial.isEmpty, "trial \(trial): partial batches \(partial)")
                try FileManager.default.removeItem(at: copy)
            }
        } catch {
            stop.withLock { $0 = true }
            for writer in writers { _ = await writer.result }
            throw error
        }
        stop.withLock { $0 = true }
        for writer in writers { try await writer.value }
        #expect(Set(counts).count > 1, "the writers committed between backups: \(counts)")
        print(
            "[backup] \(inMemory ? "in-memory" : "file") store, \(Self.writers) writers, batches of \(Self.batch): \(Self.trials) backups held \(counts.first ?? 0)…\(counts.last ?? 0) writer rows, all whole batches"
        )
    }

    /// The writer rows in a copy and the batches that are not whole.
    static func batches(in url: URL) throws -> (count: Int, partial: [String: Int]) {
        let connection = try Connection(path: url.path, options: .init(readOnly: true, create: false))
        defer { connection.close() }
        var count = 0
        var partial: [String: Int] = [:]
        for row in try connection.rows("SELECT name, count(*) FROM Person WHERE name NOT LIKE 'seed-%' GROUP BY name") {
            guard case .text(let name) = row[0], case .integer(let rows) = row[1] else { continue }
            count += Int(rows)
            if rows != Self.batch { partial[name] = Int(rows) }
        }
        return (count, partial)
    }

    // The in-memory backup under a steady stream of commits, and the backup of
    // a read-only stack whose file a writer changed.

    /// A writer commits between (nearly) every two steps of an in-memory
    /// backup: each commit makes SQLite start the copy over at its first
    /// page, so `remaining` never grows past its last value — the restarts
    /// were not counted and the copy never finished. It must finish, in a
    /// bounded time, with whole batches only.
    @Test func anInMemoryBackupFinishesUnderSteadyCommits() async throws {
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
        defer { try? stack.close() }
        try BackupTests.seed(stack, rows: 3000)  // about 4 MB, 16 steps
        let stop = Shared(false)
        let writer = Thread {
            var number = 0
            while !stop.withLock({ $0 }) {
                number += 1
                let context = stack.newContext()
                for row in 0..<BackupTests.batch { context.insert(HandWrittenPerson(name: "w-\(number)", age: row)) }
                try? context.save()
            }
        }
        writer.start()
        defer { stop.withLock { $0 = true } }
        let copy = folder.file("copy.sqlite")
        let finished: Bool? = try await finishingOnThread(within: 60) {
            try stack.backup(to: copy)
            return true
        }
        stop.withLock { $0 = true }
        #expect(finished != nil, "the backup did not finish in 60 s under steady commits")
        guard finished != nil else { return }
        let (_, partial) = try BackupTests.batches(in: copy)
        #expect(partial.isEmpty, "partial batches \(partial)")
    }

    /// A read-only stack opened while nothing else had the store open reads
    /// it `immutable`, without locks. A writer that opens the store later and
    /// checkpoints changes the file under it: its backup must refuse, not
    /// copy pages of two states.
    @Test func aReadOnlyStackRefusesToBackUpAFileAWriterChanged() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("shared.sqlite")
        try ReadOnlyStackTests.makeStore(at: url)
        let reader = try RecordStack(storeAt: url, entities: [HandWrittenNote.self], readOnly: true)
        defer { try? reader.close() }
        try reader.backup(to: folder.file("before.sqlite"))

        let writer = try RecordStack(storeAt: url, entities: [HandWrittenNote.self])
        let context = writer.newContext()
        for index in 0..<50 { context.insert(HandWrittenNote(text: "later \(index)")) }
        try context.save()
        try writer.close()  // checkpoints into the file the reader has open

        let destination = folder.file("after.sqlite")
        let error = try #require(throws: LiteRecordError.self) { try reader.backup(to: destination) }
        #expect(error.kind == .storeUnavailable, "\(error)")
        #expect(error.message.contains("was written since") && error.message.contains("read-only"), "\(error.message)")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }
}
