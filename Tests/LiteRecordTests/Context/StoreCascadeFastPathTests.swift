import Foundation
import Testing
@testable import LiteRecord

/// The store-side cascade's fast path: when nothing changed the
/// store since the deletion read the doomed rows — the writer's data version
/// and changed-row count as they were (``StoreStamp``) — a save deletes them
/// by the foreign keys that named them, without checking each row's version.
/// Over random interleavings of loads, another stack's commits on the same
/// file, a plain SQLite connection's (another program, which LiteRecord
/// hears of only through the data version) and `write {}`s of the same
/// stack, touching the doomed rows or not,
/// before and after the deletion, and a save run inside such a write, it
/// must give what the plain path gives:
/// the same rows left, change sets and errors under each merge policy
/// (Docs/Internals/Invariants.md, "A fast path means what the plain path means").
@Suite struct StoreCascadeFastPathTests {
    @Test(arguments: [MergePolicy.error, .objectTrumps, .storeTrumps], [false, true])
    func fastPathMeansWhatThePlainPathMeans(_ policy: MergePolicy, inMemory: Bool) async throws {
        let fast = try await Self.run(policy, fastPath: true, inMemory: inMemory)
        let plain = try await Self.run(policy, fastPath: false, inMemory: inMemory)
        #expect(fast.results == plain.results)
        #expect(fast.rows == plain.rows)
        #expect(fast.changes == plain.changes)
        // Both paths ran: the fast one only where nothing changed the store.
        #expect(fast.fastSaves > 20)
        #expect(fast.fastSaves < fast.results.count)
        #expect(plain.fastSaves == 0)
        // A plain connection wrote rows (for a file).
        #expect(inMemory || plain.results.contains("raw wrote 1"))
        // Other writers' changes to doomed rows made some saves meet conflicts.
        #expect(policy != .error || plain.results.contains { $0 != "saved" })
    }

    private struct Outcome {
        var results: [String] = []
        var rows: [[SQLValue]] = []
        var changes: [ChangeSet] = []
        var fastSaves = 0
    }

    private static let iterations = 200

    private static func run(_ policy: MergePolicy, fastPath: Bool, inMemory: Bool) async throws -> Outcome {
        let folder = try TemporaryDirectory()
        let url = folder.file("cascade.sqlite")
        let stack = inMemory ? try RecordStack(inMemoryWith: storeCascadeEntities) : try RecordStack(storeAt: url, entities: storeCascadeEntities)
        stack.store.trustsUnchangedCascadeReadsFlag.store(fastPath, ordering: .relaxed)
        // Another stack on the same file: another connection, as another process.
        let otherStack = inMemory ? nil : try RecordStack(storeAt: url, entities: storeCascadeEntities)
        // And a connection that is no stack's: another program writing the file.
        let others = OtherWriters(stack: otherStack, raw: inMemory ? nil : try Connection(path: url.path))
        let stream = stack.changes
        var generator = CascadeSeed(seed: 6_767)
        var counter = 0
        var outcome = Outcome()
        for _ in 0..<iterations {
            let context = stack.newContext()
            context.mergePolicy = policy
            var books = try CSBook.findAll(in: context)
            if books.count < 4 {
                try seed(stack.newContext(), &generator, &counter)
                books = try CSBook.findAll(in: context)
            }
            let doomed = books[Int(generator.next() % UInt64(books.count))]
            let doomedTitle = doomed.title
            // Loads: objects held here are the context's to delete or spare.
            switch generator.next() % 5 {
            case 0: _ = books[Int(generator.next() % UInt64(books.count))].chapters
            case 1: _ = try CSParagraph.findAll(in: context)
            case 2: doomed.chapters.first?.title += "*"
            default: break
            }
            if generator.next() % 4 == 0 {
                outcome.results += try await otherWrites(stack, others, &generator, &counter, doomed: doomedTitle)
            }
            context.delete(doomed)
            if generator.next() % 3 != 0 {
                outcome.results += try await otherWrites(stack, others, &generator, &counter, doomed: doomedTitle)
            }
            var saved: (result: String, fast: Bool)
            if generator.next() % 4 == 0 {
                // Saved inside a write of this stack, after it changed rows
                // (or not): nothing committed, but the writer wrote.
                let action = generator.next()
                let fresh = "N\(counter)"
                counter += 1
                saved = ("", false)
                do {
                    let written = try stack.performWrite { writer in
                        let result = otherWrite(writer, action, doomed: doomedTitle, fresh: fresh)
                        saved = save(context, on: stack)
                        return result
                    }
                    outcome.results.append(written.0)
                } catch let error as LiteRecordError {
                    // The write's commit met what the nested save left (a
                    // chapter it inserted under the deleted book).
                    outcome.results.append("write: \(error.kind)")
                }
            } else {
                saved = save(context, on: stack)
            }
            outcome.results.append(saved.result)
            if saved.fast { outcome.fastSaves += 1 }
        }
        outcome.rows = try stack.store.withConnection("reading the rows") { connection in
            var rows: [[SQLValue]] = []
            for table in ["Book", "Chapter", "Paragraph"] {
                rows += try connection.rows("SELECT '\(table)', * FROM \"\(table)\" ORDER BY \"Z_PK\"")
            }
            return rows
        }
        try otherStack?.close()
        try stack.close()
        for await change in stream { outcome.changes.append(change) }
        return outcome
    }

    /// Saves `context`: what it met, and whether it deleted rows by foreign key (the fast path).
    private static func save(_ context: RecordContext, on stack: RecordStack) -> (String, Bool) {
        let (result, statements) = stack.recordingSQL { () -> String in
            do {
                try context.save()
                return "saved"
            } catch let error as LiteRecordError {
                return "\(error.kind)"
            } catch {
                return "\(error)"
            }
        }
        let fast = statements.contains { $0.hasPrefix("DELETE") && ($0.contains("\"book\" IN (") || $0.contains("\"chapter\" IN (")) }
        return (result, fast)
    }

    /// Four books, each with one to three chapters of up to two paragraphs.
    private static func seed(_ context: RecordContext, _ generator: inout CascadeSeed, _ counter: inout Int) throws {
        for _ in 0..<4 {
            let book = CSBook(title: "B\(counter)")
            counter += 1
            context.insert(book)
            for _ in 0...(generator.next() % 3) {
                let chapter = CSChapter(title: "C\(counter)")
                counter += 1
                context.insert(chapter)
                chapter.book = book
                for _ in 0..<(generator.next() % 3) {
                    let paragraph = CSParagraph(text: "P\(counter)")
                    counter += 1
                    context.insert(paragraph)
                    paragraph.chapter = chapter
                }
            }
        }
        try context.save()
    }

    /// The writers beside the stack under test on its file; none for an in-memory store.
    private struct OtherWriters {
        let stack: RecordStack?
        let raw: Connection?
    }

    /// One to three commits by other writers — another stack on the file, a
    /// plain SQLite connection (for an in-memory store, neither), a
    /// `write {}` of this stack — each touching the doomed book's rows or
    /// not. Returns what each write met.
    private static func otherWrites(
        _ stack: RecordStack, _ others: OtherWriters, _ generator: inout CascadeSeed, _ counter: inout Int, doomed: String
    ) async throws -> [String] {
        var results: [String] = []
        let writers = generator.next() % 3
        if writers != 1, let otherStack = others.stack {
            results.append(otherWrite(otherStack.newContext(), generator.next(), doomed: doomed, fresh: "N\(counter)"))
            counter += 1
        }
        if let raw = others.raw, generator.next() % 3 == 0 {
            results.append(rawWrite(raw, generator.next(), doomed: doomed))
        }
        if writers != 0 || others.stack == nil {
            let action = generator.next()
            let fresh = "N\(counter)"
            counter += 1
            results.append(try await stack.write { context in otherWrite(context, action, doomed: doomed, fresh: fresh) })
        }
        return results
    }

    /// One change by a plain SQLite connection, as another program makes
    /// it: to the doomed book's rows, moving their versions as LiteRecord
    /// would or leaving them, or to rows the deletion does not take.
    private static func rawWrite(_ connection: Connection, _ action: UInt64, doomed: String) -> String {
        let chapterOfDoomed = """
            SELECT c."Z_PK" FROM "Chapter" AS c JOIN "Book" AS b ON c."book" = b."Z_PK" \
            WHERE b."title" = ? ORDER BY c."Z_PK" LIMIT 1
            """
        let sql: String
        switch action % 4 {
        case 0: sql = "UPDATE \"Chapter\" SET \"title\" = \"title\" || '^', \"Z_OPT\" = \"Z_OPT\" + 1 WHERE \"Z_PK\" = (\(chapterOfDoomed))"
        case 1: sql = "UPDATE \"Chapter\" SET \"title\" = \"title\" || '~' WHERE \"Z_PK\" = (\(chapterOfDoomed))"
        case 2: sql = "DELETE FROM \"Paragraph\" WHERE \"chapter\" = (\(chapterOfDoomed))"
        default:
            sql = "UPDATE \"Book\" SET \"title\" = \"title\" || '^', \"Z_OPT\" = \"Z_OPT\" + 1 WHERE \"Z_PK\" = (SELECT min(\"Z_PK\") FROM \"Book\" WHERE \"title\" != ?)"
        }
        do {
            try connection.execute(sql, [.text(doomed)])
            return "raw wrote \(connection.changes)"
        } catch {
            return "raw: \(error)"
        }
    }

    /// One change, saved: `action` picks it.
    private static func otherWrite(_ context: RecordContext, _ action: UInt64, doomed: String, fresh: String) -> String {
        do {
            let chapters = try CSChapter.findAll(in: context)
            let ofDoomed = chapters.filter { $0.book?.title == doomed }
            let others = chapters.filter { $0.book != nil && $0.book?.title != doomed }
            switch action % 8 {
            case 0: ofDoomed.first?.title += "'"
            case 1: ofDoomed.first?.paragraphs.first?.text += "'"
            case 2: if let chapter = ofDoomed.last { context.delete(chapter) }
            case 3:
                if let book = ofDoomed.first?.book {
                    let chapter = CSChapter(title: fresh)
                    context.insert(chapter)
                    chapter.book = book
                }
            case 4: ofDoomed.first?.book = others.first?.book
            case 5: others.first?.title += "'"
            case 6: _ = others.first?.paragraphs
            default: context.insert(CSBook(title: fresh))
            }
            try context.save()
            return "writer saved"
        } catch let error as LiteRecordError {
            context.rollback()
            return "writer: \(error.kind)"
        } catch {
            context.rollback()
            return "writer: \(error)"
        }
    }
}

/// SplitMix64: the same sequence on every platform, for both paths.
private struct CascadeSeed {
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
