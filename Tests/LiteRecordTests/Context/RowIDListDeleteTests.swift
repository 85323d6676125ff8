import Foundation
import Testing
@testable import LiteRecord

/// A save deletes many rows by row-id lists bound as parameters
/// (``RowIDListDeletes``); the plain path deletes them one
/// statement per row. Both must delete the same rows and report the same
/// change sets, conflicts and errors (Docs/Internals/Invariants.md, "A fast
/// path means what the plain path means").
@Suite struct RowIDListDeleteTests {
    /// The lists alone: random id sets — empty, one, a whole chunk, a chunk
    /// and one more, across several chunks, with repeats, ids of no row and
    /// rows at another version — through one ``RowIDListDeletes`` (so a
    /// shorter list reuses a statement a longer one filled), against one
    /// `DELETE` per id on a copy of the table.
    @Test func aListDeletesWhatOneStatementPerIDDeletes() throws {
        let entity = EntityDescription(type: RowListNote.self)
        let listed = try Self.table(entity)
        let plain = try Self.table(entity)
        var lists = RowIDListDeletes()
        var generator = DeleteSeed(seed: 67)
        let chunk = RowIDListDeletes.chunkSize
        let sizes = [0, 1, 2, 3, 5, 255, 256, 257, chunk - 1, chunk, chunk + 1, 2 * chunk, 2 * chunk + 1, 0, 1, 40, 700]
        var rounds: [(ids: [Int64], version: Int64)] = sizes.map { size in
            // Ids of rows, of rows deleted by an earlier round, and of none.
            var ids = (0..<size).map { _ in Int64(generator.next() % 6_500) + 1 }
            if size > 2 {
                ids[size - 1] = ids[0]  // the same id twice, maybe in two chunks
                ids[size / 2] = ids[1]
            }
            return (ids, Int64(generator.next() % 2) + 1)
        }
        // A full list that deletes nothing (no row is at version 3), then a
        // shorter one of the same length class: the ids past its own must
        // not be the first list's, whose rows are at version 1.
        rounds += [((5_001...5_256).map { Int64($0) }, 3), ((5_301...5_500).map { Int64($0) }, 1)]
        for (ids, version) in rounds {
            let size = ids.count
            let deleted = try lists.delete(ids, at: version, of: entity, on: listed)
            var deletedOneByOne = 0
            for id in ids {
                try plain.execute(entity.deleteSQL, [.integer(id), .integer(version)])
                deletedOneByOne += plain.changes
            }
            #expect(deleted == deletedOneByOne, "\(size) ids at version \(version)")
            let rows = try listed.rows("SELECT \"Z_PK\", \"Z_OPT\" FROM \"RowListNote\" ORDER BY \"Z_PK\"")
            #expect(rows == (try plain.rows("SELECT \"Z_PK\", \"Z_OPT\" FROM \"RowListNote\" ORDER BY \"Z_PK\"")))
        }
    }

    /// A table of `entity` with 6,000 rows, one in three at version 2.
    private static func table(_ entity: EntityDescription) throws -> Connection {
        let connection = try Connection(path: nil)
        try connection.execute(#"CREATE TABLE "RowListNote" ("Z_PK" INTEGER PRIMARY KEY, "n" INTEGER, "Z_OPT" INTEGER)"#)
        try connection.execute(
            #"WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 6000) INSERT INTO "RowListNote" SELECT i, i, 1 + (i % 3 = 0) FROM k"#)
        return connection
    }

    /// Saves that delete notes by the hundred and books whose chapters and
    /// paragraphs are left to the store, while another context changes and
    /// deletes some of the same rows before the save: the same rows left,
    /// the same change sets and the same errors as the plain path, under
    /// each merge policy.
    @Test(arguments: [MergePolicy.error, .objectTrumps, .storeTrumps])
    func savesDeleteWhatThePlainPathDeletes(_ policy: MergePolicy) async throws {
        let listed = try await Self.run(policy, plain: false)
        let plain = try await Self.run(policy, plain: true)
        #expect(listed.results == plain.results)
        #expect(listed.rows == plain.rows)
        #expect(listed.changes == plain.changes)
        #expect(listed.changes.contains { $0.deleted.count > RowIDListDeletes.chunkSize })
        // The other writer's changes made some saves meet conflicts.
        #expect(policy != .error || listed.results.contains { $0 != "saved" })
    }

    private struct Outcome {
        var results: [String] = []
        var rows: [[SQLValue]] = []
        var changes: [ChangeSet] = []
    }

    private static func run(_ policy: MergePolicy, plain: Bool) async throws -> Outcome {
        let stack = try RecordStack(inMemoryWith: storeCascadeEntities + [RowListNote.self])
        stack.store.deletesRowByRowFlag.store(plain, ordering: .relaxed)
        let stream = stack.changes
        let seeding = stack.newContext()
        for index in 0..<4_000 {
            let note = RowListNote()
            note.n = index
            seeding.insert(note)
        }
        for index in 0..<40 {
            let book = CSBook(title: "B\(index)")
            seeding.insert(book)
            for part in 0..<3 {
                let chapter = CSChapter(title: "C\(index).\(part)")
                chapter.book = book
                for line in 0..<2 { CSParagraph(text: "P\(index).\(part).\(line)").chapter = chapter }
            }
        }
        try seeding.save()

        var outcome = Outcome()
        var generator = DeleteSeed(seed: 4067)
        let chunk = RowIDListDeletes.chunkSize
        for size in [0, 1, 2, chunk, chunk + 1, 3, 2 * chunk + 7, 255, 256, 257, 90] {
            let context = stack.newContext()
            context.mergePolicy = policy
            var notes = try RowListNote.findAll(in: context)
            for _ in 0..<min(size, notes.count) {
                context.delete(notes.remove(at: Int(generator.next() % UInt64(notes.count))))
            }
            // Books, their chapters not loaded: those are left to the store.
            var books = try CSBook.findAll(in: context)
            for _ in 0..<min(Int(generator.next() % 3), books.count) {
                context.delete(books.remove(at: Int(generator.next() % UInt64(books.count))))
            }
            // Another writer, after the deletions read their rows.
            let other = stack.newContext()
            var theirs = try RowListNote.findAll(in: other)
            for _ in 0..<Int(generator.next() % 4) where !theirs.isEmpty {
                let note = theirs.remove(at: Int(generator.next() % UInt64(theirs.count)))
                if generator.next() % 2 == 0 { note.n += 1 } else { other.delete(note) }
            }
            let chapters = try CSChapter.findAll(in: other)
            if generator.next() % 3 == 0, !chapters.isEmpty {
                chapters[Int(generator.next() % UInt64(chapters.count))].title += "'"
            }
            try other.save()
            do {
                try context.save()
                outcome.results.append("saved")
            } catch let error as LiteRecordError {
                outcome.results.append("\(error.kind)")
            }
        }
        outcome.rows = try stack.store.withConnection("reading the rows") { connection in
            var rows: [[SQLValue]] = []
            for table in ["RowListNote", "Book", "Chapter", "Paragraph"] {
                rows += try connection.rows("SELECT '\(table)', \"Z_PK\", \"Z_OPT\" FROM \"\(table)\" ORDER BY \"Z_PK\"")
            }
            return rows
        }
        try stack.close()
        for await change in stream { outcome.changes.append(change) }
        return outcome
    }
}

@Entity final class RowListNote {
    var n = 0
    init() {}
}

/// SplitMix64: the same sequence on every platform, for both paths.
private struct DeleteSeed {
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
