import Foundation
import Testing
import LiteRecord

/// A damaged header, a damaged middle page, a truncated file, a file that is
/// not a database and a folder in the store's place: every way of opening or
/// reading it fails with an error that names the path (or, for damage that
/// opening cannot see, `check` reports it), and the file is byte-identical
/// afterwards.
@Suite struct DamagedFileTests {
    enum Damage: String, CaseIterable, Sendable {
        case header, middlePage, truncated, notADatabase, folder
    }

    /// A healthy store of about 40 pages, closed (no `-wal`/`-shm`).
    static func healthyStore(at url: URL) throws {
        let stack = try RecordStack(storeAt: url, entities: [HandWrittenNote.self])
        let context = stack.newContext()
        for index in 0..<300 {
            context.insert(HandWrittenNote(text: "note \(index)", payload: Data(repeating: UInt8(index % 251), count: 500)))
        }
        try context.save()
        try stack.close()
    }

    static func damage(_ url: URL, _ damage: Damage) throws {
        var bytes = try Data(contentsOf: url)
        switch damage {
        case .header:
            bytes.replaceSubrange(0..<100, with: Data(repeating: 0xAB, count: 100))
            try bytes.write(to: url)
        case .middlePage:
            let raw = Int(bytes[16]) << 8 | Int(bytes[17])
            let pageSize = raw == 1 ? 65536 : raw
            let page = bytes.count / pageSize / 2
            var random = TrialRandom(seed: 13)
            let noise = Data((0..<pageSize).map { _ in UInt8.random(in: 0...255, using: &random) })
            bytes.replaceSubrange(page * pageSize..<(page + 1) * pageSize, with: noise)
            try bytes.write(to: url)
        case .truncated:
            try bytes.prefix(bytes.count / 2 + 123).write(to: url)
        case .notADatabase:
            try Data(String(repeating: "this is not a database\n", count: 200).utf8).write(to: url)
        case .folder:
            try FileManager.default.removeItem(at: url)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
            try Data("inside".utf8).write(to: url.appendingPathComponent("file.txt"))
        }
    }

    @Test(arguments: Damage.allCases)
    func damagedStoreIsRefusedNamingThePathAndLeftIdentical(_ damage: Damage) throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("damaged.sqlite")
        try Self.healthyStore(at: url)
        try Self.damage(url, damage)
        let before = Reliability.snapshot(url)
        var failures: [String] = []

        // The read-only tools first: they must leave nothing beside the file.
        var checkFound = false
        switch try Reliability.attempt({ try StoreCheck(storeAt: url) }) {
        case .success(let check):
            checkFound = !check.isHealthy
            if checkFound { failures.append("check: \(check.problems.count) problems") }
        case .failure(let error):
            #expect(error.message.contains(url.path), "StoreCheck: \(error.message)")
            failures.append("check: \(error.kind)")
        }
        if case .failure(let error) = try Reliability.attempt({ try StoreInspection(storeAt: url) }) {
            #expect(error.message.contains(url.path), "StoreInspection: \(error.message)")
            failures.append("inspect: \(error.kind)")
        }
        #expect(Reliability.companions(of: url).isEmpty, "the read-only tools left \(Reliability.companions(of: url))")

        // Then the stack, read-only and read-write, through a fetch of everything.
        for readOnly in [true, false] {
            do {
                let stack = try RecordStack(storeAt: url, entities: [HandWrittenNote.self], readOnly: readOnly)
                defer { try? stack.close() }
                let notes = try HandWrittenNote.findAll(in: stack.newContext())
                _ = notes.map(\.payload)
                failures.append("stack(readOnly: \(readOnly)): read \(notes.count) rows")
            } catch let error as LiteRecordError {
                #expect(error.message.contains(url.path), "stack(readOnly: \(readOnly)): \(error.message)")
                #expect([.corruptStore, .storeUnavailable].contains(error.kind), "\(error)")
                failures.append("stack(readOnly: \(readOnly)): \(error.kind)")
            }
        }
        if damage == .middlePage {
            #expect(checkFound, "integrity_check finds the damaged page")
        } else {
            #expect(failures.allSatisfy { !$0.contains("rows") }, "\(failures)")
        }
        #expect(Reliability.snapshot(url) == before, "the file changed")
        Reliability.report("damaged file (\(damage.rawValue)): \(failures.joined(separator: "; ")); byte-identical afterwards")
    }
}
