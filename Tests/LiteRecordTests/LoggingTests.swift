import Foundation
import Logging
import Testing
@testable import LiteRecord

@Suite(.serialized) struct LoggingTests {
    @Test func logLevelDefaultsToWarningAndIsSettable() {
        #expect(RecordStack.logger.label == "LiteRecord")
        let previous = RecordStack.logLevel
        defer { RecordStack.logLevel = previous }
        RecordStack.logLevel = .trace
        #expect(RecordStack.logLevel == .trace)
        #expect(RecordStack.logger.logLevel == .trace)
    }

    /// MagicalRecord's logging could not be changed at run time; this level can,
    /// for a stack that is already open.
    @Test @MainActor func levelSetAfterSetupTakesEffectForOpenStacks() throws {
        let captured = CapturedLog()
        let (previousLevel, previousLogger) = (RecordStack.logLevel, RecordStack.logger)
        defer {
            RecordStack.logLevel = previousLevel
            RecordStack.logger = previousLogger
        }
        RecordStack.logger = Logger(label: "LiteRecord") { _ in captured }
        RecordStack.logLevel = .warning

        let stack = try RecordStack(inMemoryWith: [LoggedNote.self])
        defer { try? stack.close() }
        _ = try LoggedNote.findAll(in: stack.mainContext)
        #expect(!captured.messages.contains { $0.contains("LoggedNote") })

        RecordStack.logLevel = .trace
        _ = try LoggedNote.findAll(in: stack.mainContext)
        #expect(captured.messages.contains { $0.contains("SELECT") && $0.contains("LoggedNote") })

        RecordStack.logLevel = .warning
        let before = captured.messages.count { $0.contains("LoggedNote") }
        _ = try LoggedNote.count(in: stack.mainContext)
        #expect(captured.messages.count { $0.contains("LoggedNote") } == before)
    }

    @Test func errorsDoNotShowValuesUnlessEnabled() {
        let error = LiteRecordError(.constraintViolation, "saving failed", sqlite: nil, arguments: [.text("secret")])
        #expect(!error.description.contains("secret"))
    }
}

@Entity
final class LoggedNote {
    var text = ""
    init() {}
}

/// A log handler that keeps every message it is given.
final class CapturedLog: LogHandler, @unchecked Sendable {
    // @unchecked: `lines` is only touched under `lock`; the level and
    // metadata are set once, before the handler is shared.
    private let lock = NSLock()
    private var lines: [String] = []
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    var messages: [String] { lock.withLock { lines } }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lock.withLock { lines.append("\(event.message)") }
    }
}
