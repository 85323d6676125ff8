import Foundation
import Synchronization
import Testing
@testable import LiteRecord

/// SQLite's profile callback (`SQLITE_TRACE_PROFILE`) costs every statement
/// two clock reads and a call: a connection has it installed only while
/// someone listens — a `recordingSQL`, SQL logging at `.trace` — checked each
/// time the store takes the connection for use. In
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

    /// A listener that starts while a connection is held — by this thread or
    /// by another one, in the middle of its work — hears every statement
    /// that connection runs from then on, through a prepared statement or
    /// `sqlite3_exec`, on the writer and on a reader, as it would with the
    /// callback always installed; the callback is installed only while the
    /// listener listens, and removed before the next statement once it stops.
    @Test func aListenerThatStartsWhileAConnectionIsHeldHearsWhatFollows() throws {
        let previous = RecordStack.logLevel
        defer { RecordStack.logLevel = previous }
        RecordStack.logLevel = .debug
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(storeAt: folder.file("Held.sqlite"), entities: [LoggedNote.self])
        defer { try? stack.close() }
        let context = stack.newContext()
        context.insert(LoggedNote())
        try context.save()
        _ = try LoggedNote.findAll(in: stack.newContext())

        func heard(on connection: Connection, _ label: String) throws -> (before: [Bool], during: [String], after: Bool) {
            _ = try connection.rows("SELECT 'before \(label)'")
            let armedBefore = connection.isTraceArmed
            let (armedDuring, statements) = try stack.recordingSQL {
                _ = try connection.rows("SELECT 'statement \(label)'")
                try connection.execute("SELECT 'exec \(label)'")
                return connection.isTraceArmed
            }
            _ = try connection.rows("SELECT 'after \(label)'")
            return ([armedBefore, armedDuring], statements, connection.isTraceArmed)
        }
        for (label, result) in [
            ("writer", try stack.store.withConnection("the test's writer") { try heard(on: $0, "writer") }),
            ("reader", try stack.store.withReaderPassingCallerErrors("the test's reader") { try heard(on: $0, "reader") }),
        ] {
            #expect(result.before == [false, true], "\(label)")
            #expect(result.during == ["SELECT 'statement \(label)'", "SELECT 'exec \(label)'"], "\(label)")
            #expect(result.after == false, "\(label)")
        }

        // Another thread holds the writer, runs a statement, waits while the
        // recording starts, then runs two more before letting the writer go.
        let listening = DispatchSemaphore(value: 0)
        let holding = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let failure = Mutex<String?>(nil)
        Thread {
            do {
                try stack.store.withConnection("the other thread's writer") { connection in
                    _ = try connection.rows("SELECT 'other before'")
                    holding.signal()
                    listening.wait()
                    _ = try connection.rows("SELECT 'other statement'")
                    try connection.execute("SELECT 'other exec'")
                }
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
            done.signal()
        }.start()
        holding.wait()
        let (_, statements) = stack.recordingSQL {
            listening.signal()
            done.wait()
        }
        #expect(failure.withLock { $0 } == nil)
        #expect(statements == ["SELECT 'other statement'", "SELECT 'other exec'"])
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
