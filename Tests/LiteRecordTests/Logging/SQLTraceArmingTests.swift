import Foundation
import Testing
@testable import LiteRecord

/// SQLite's profile callback (`SQLITE_TRACE_PROFILE`) costs every statement
/// two clock reads and a call: a connection has it installed only while
/// someone listens — a `recordingSQL`, SQL logging at `.trace` — checked each
/// time the store takes the connection for use (issue #67). In
/// ``LoggingTests``, whose tests run one at a time: the log level is the
/// process's.
extension LoggingTests {
    /// Whether the writer, and a reader of the pool, have the callback
    /// installed when taken for use now.
    private func armed(_ stack: RecordStack) throws -> [Bool] {
        [
            try stack.store.withConnection("the test's check") { $0.isTraceArmed },
            try stack.store.withReaderPassingCallerErrors("the test's check") { $0.isTraceArmed },
        ]
    }

    @Test func traceIsArmedOnlyWhileSomeoneListens() throws {
        let previous = RecordStack.logLevel
        defer { RecordStack.logLevel = previous }
        RecordStack.logLevel = .debug
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(storeAt: folder.file("Trace.sqlite"), entities: [LoggedNote.self])
        defer { try? stack.close() }
        let context = stack.newContext()
        context.insert(LoggedNote())
        try context.save()
        _ = try LoggedNote.findAll(in: stack.newContext())
        #expect(try armed(stack) == [false, false])

        let (whileRecording, _) = try stack.recordingSQL { try armed(stack) }
        #expect(whileRecording == [true, true])
        #expect(try armed(stack) == [false, false])

        RecordStack.logLevel = .trace
        #expect(try armed(stack) == [true, true])
        RecordStack.logLevel = .debug
        #expect(try armed(stack) == [false, false])
    }

    /// The same statements reach a listener that starts while the stack's
    /// connections are open — the writer idle, a reader idle in the pool, a
    /// reader held by a `read` — as reach one that listened from the start,
    /// whose connections were armed all along.
    @Test func aListenerThatStartsLateGetsEveryStatement() throws {
        let previous = RecordStack.logLevel
        defer { RecordStack.logLevel = previous }
        RecordStack.logLevel = .debug
        let fromTheStart = try statementsOfWork(listeningFromTheStart: true)
        let late = try statementsOfWork(listeningFromTheStart: false)
        #expect(late == fromTheStart)
        #expect(late.pooled.contains { $0.hasPrefix("SELECT") && $0.contains("LoggedNote") })
        #expect(late.pooled.contains { $0.hasPrefix("INSERT") && $0.contains("LoggedNote") })
        #expect(late.pinned.contains { $0.hasPrefix("SELECT") && $0.contains("LoggedNote") })
    }

    private struct Recorded: Equatable {
        var pooled: [String]
        var pinned: [String]
    }

    private func statementsOfWork(listeningFromTheStart: Bool) throws -> Recorded {
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(storeAt: folder.file("Late.sqlite"), entities: [LoggedNote.self])
        defer { try? stack.close() }
        let token = listeningFromTheStart ? stack.store.addObserver { _ in } : nil
        defer { if let token { stack.store.removeObserver(token) } }
        // Opens the writer and a reader, which wait unused for the listener.
        let context = stack.newContext()
        context.insert(LoggedNote())
        try context.save()
        _ = try LoggedNote.findAll(in: stack.newContext())

        let (_, pooled) = try stack.recordingSQL {
            let note = LoggedNote()
            note.text = "late"
            context.insert(note)
            try context.save()
            _ = try LoggedNote.findAll(in: stack.newContext())
        }
        // A reader taken before the listener starts, by a read closure.
        let pinned = try stack.performRead { reading in
            try stack.recordingSQL { _ = try LoggedNote.findAll(in: reading) }.statements
        }
        return Recorded(pooled: pooled, pinned: pinned)
    }
}
