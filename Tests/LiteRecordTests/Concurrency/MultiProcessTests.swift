import Foundation
import Testing
import LiteRecord

/// The `Note` entity as `LiteRecordTestChild` (and the `literecord demo`)
/// declares it, so the test can open a store the child wrote.
final class CLINote: Entity {
    var recordState = RecordState()
    var title = ""
    static let entityName = "Note"
    static let attributes: [AttributeDescription] = [
        AttributeDescription("title", type: .string, options: [.indexed]),
        AttributeDescription("body", type: .string),
        AttributeDescription("stars", type: .int),
        AttributeDescription("createdAt", type: .date),
    ]
    init(row: Row) throws { title = try row.decode(String.self, at: 0) }
    func encodeAttribute(at index: Int) throws -> SQLValue { index == 0 ? .text(title) : .null }
    func decodeAttribute(at index: Int, from row: Row) throws {
        if index == 0 { title = try row.decode(String.self, at: 0) }
    }
}

@Suite(.tags(.threads)) struct MultiProcessTests {
    /// Both processes create the store too: the one that loses the race to
    /// put it in WAL mode waits for the other instead of failing ("database
    /// is locked" from `PRAGMA journal_mode = WAL`, which SQLite answers
    /// without its busy handler).
    @Test func twoProcessesWritingOneStoreLoseNothing() async throws {
        let binary = try BuiltExecutables.testChild()
        let folder = try TemporaryDirectory()
        let url = folder.file("shared.sqlite")
        let rows = 300
        let runs = try await withThrowingTaskGroup(of: ChildRun.self) { group in
            for writer in 0..<2 {
                let process = Process()
                process.executableURL = binary
                process.arguments = ["stress-write", url.path, "--rows", "\(rows)", "--label", "p\(writer)"]
                group.addTask { try await process.runToEnd(includingErrors: true) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(runs.map(\.status) == [0, 0], "no writer failed (no SQLITE_BUSY surfaced): \(runs.map(\.text))")

        let stack = try RecordStack(storeAt: url, entities: [CLINote.self])
        let titles = try CLINote.findAll(in: stack.newContext()).map(\.title)
        #expect(titles.count == 2 * rows)
        #expect(Set(titles) == Set((0..<2).flatMap { writer in (0..<rows).map { "p\(writer)-\($0)" } }))
        try stack.close()
    }
}
