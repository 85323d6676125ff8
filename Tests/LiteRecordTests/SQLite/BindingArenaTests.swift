import Foundation
import Testing
@testable import LiteRecord

@Entity final class ArenaNote {
    var title = ""
    var body = ""
    var data = Data()
    var tag: String?
    @Attribute(.unique) var slug = ""
    init() {}
}

/// Saves bind text and blobs by pointing SQLite into a reused block of memory
/// (`BindingArena`) instead of letting it copy each value: the values that
/// come back must be the values saved, whatever their sizes, with rows whose
/// values outgrow the block in the middle of a row, and for updates as for
/// inserts.
@Suite struct BindingArenaTests {
    /// A text of `count` characters that differs per row and per attribute.
    private func text(_ row: Int, _ attribute: String, _ count: Int) -> String {
        let seed = "\(attribute)-\(row)-é\u{0}"
        return String(repeating: seed, count: count / seed.count + 1)
    }

    private func blob(_ row: Int, _ count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ row) })
    }

    @Test func insertsAndUpdatesKeepEveryByte() throws {
        let stack = try RecordStack(inMemoryWith: [ArenaNote.self])
        let context = stack.newContext()
        // Sizes around and beyond the arena's first 4 KiB block, so that a row
        // outgrows it after some of its values are bound; empty values too.
        let sizes = [0, 1, 15, 16, 36, 1_000, 3_000, 4_096, 5_000, 20_000, 2, 0]
        var notes: [ArenaNote] = []
        for (row, size) in sizes.enumerated() {
            let note = ArenaNote()
            note.title = text(row, "title", size)
            note.body = text(row, "body", 4_100 - min(size, 4_100))
            note.data = blob(row, size)
            note.tag = row.isMultiple(of: 3) ? nil : text(row, "tag", size / 2)
            note.slug = "slug-\(row)-Cafe\u{301}"
            context.insert(note)
            notes.append(note)
        }
        try context.save()

        func expectStored(_ sizes: [Int], _ titles: (Int, Int) -> String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let fresh = stack.newContext()
            let stored = try ArenaNote.findAll(sortedBy: [SortDescriptor(\.slug)], in: fresh)
                .sorted { Int($0.slug.split(separator: "-")[1])! < Int($1.slug.split(separator: "-")[1])! }
            #expect(stored.count == sizes.count, sourceLocation: sourceLocation)
            for (row, note) in stored.enumerated() {
                let size = sizes[row]
                #expect(note.title == titles(row, size), "row \(row)", sourceLocation: sourceLocation)
                #expect(note.title.utf8.elementsEqual(titles(row, size).utf8), "row \(row)", sourceLocation: sourceLocation)
                #expect(note.body == text(row, "body", 4_100 - min(size, 4_100)), "row \(row)", sourceLocation: sourceLocation)
                #expect(note.data == blob(row, size), "row \(row)", sourceLocation: sourceLocation)
                #expect(note.tag == (row.isMultiple(of: 3) ? nil : text(row, "tag", size / 2)), "row \(row)", sourceLocation: sourceLocation)
                // Unique text is stored in NFC, bound through the arena too.
                #expect(note.slug.utf8.elementsEqual("slug-\(row)-Caf\u{E9}".utf8), "row \(row)", sourceLocation: sourceLocation)
            }
        }
        try expectStored(sizes) { row, size in text(row, "title", size) }

        // Updates of text only, each row a different size again.
        for (row, note) in notes.enumerated() {
            note.title = text(row, "retitled", sizes[sizes.count - 1 - row])
        }
        try context.save()
        try expectStored(sizes) { row, _ in text(row, "retitled", sizes[sizes.count - 1 - row]) }
    }

    /// A statement bound through the arena is left with no bindings, so
    /// nothing points at the freed block: the next save of the same shape
    /// binds afresh and stores its own values.
    @Test func aLaterSaveStoresItsOwnValues() throws {
        let stack = try RecordStack(inMemoryWith: [ArenaNote.self])
        let context = stack.newContext()
        for round in 0..<3 {
            let note = ArenaNote()
            note.title = text(round, "round", 5_000 * (round + 1))
            note.slug = "round-\(round)"
            context.insert(note)
            try context.save()
        }
        let stored = try ArenaNote.findAll(sortedBy: [SortDescriptor(\.slug)], in: stack.newContext())
        #expect(stored.map(\.title) == (0..<3).map { text($0, "round", 5_000 * ($0 + 1)) })
    }

    @Test func aValueOfAnyLengthMovesPastTheBlock() {
        let arena = BindingArena(capacity: 8)
        arena.beginRow()
        let small: [UInt8] = [1, 2, 3]
        let large = [UInt8](repeating: 7, count: 100)
        let first = small.withUnsafeBytes { arena.store($0) }
        let second = large.withUnsafeBytes { arena.store($0) }
        // The first value's block is kept for the rest of the row.
        #expect(Array(UnsafeRawBufferPointer(start: first, count: 3)) == small)
        #expect(Array(UnsafeRawBufferPointer(start: second, count: 100)) == large)
    }
}
