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
        defer { captured.restore() }
        captured.install(level: .warning)

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

    /// A renamed binary opens a store in another folder; the log says where
    /// the store is, which rule chose it and where the application name came from.
    @Test func namedSetupLogsWhereTheStoreIsAndWhy() throws {
        let captured = CapturedLog()
        defer { captured.restore() }
        captured.install(level: .info)
        let folder = try TemporaryDirectory()
        try RecordStack.withDefault(nil) {
            RecordStack.locator = StoreLocator(
                applicationName: "LoggedApp", documentsDirectory: folder.file("Documents"),
                applicationSupportDirectory: folder.file("Support"))
            try RecordStack.setup(storeNamed: "Logged", entities: [LoggedNote.self])
            try RecordStack.cleanUp()
        }
        let line = try #require(captured.entries.first { $0.message == "store located" })
        #expect(line.level == .info)
        #expect(line.metadata["store"] == "\(folder.file("Support/LoggedApp/Logged.sqlite").path)")
        #expect(line.metadata["rule"] == "default")
        #expect(line.metadata["applicationName"] == "LoggedApp (given explicitly)")
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
    // @unchecked: `lines` is only touched under `lock`; the level, metadata
    // and `previous` are set by the one test that owns the handler, before
    // and after it is shared.
    struct Entry {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    private let lock = NSLock()
    private var lines: [Entry] = []
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    /// The library's logger and level before ``install(level:)``.
    private var previous: (level: Logger.Level, logger: Logger)?

    /// Makes this handler LiteRecord's logger at `level`, until ``restore()``.
    func install(level: Logger.Level) {
        previous = (RecordStack.logLevel, RecordStack.logger)
        RecordStack.logger = Logger(label: "LiteRecord") { _ in self }
        RecordStack.logLevel = level
    }

    func restore() {
        guard let previous else { return }
        RecordStack.logLevel = previous.level
        RecordStack.logger = previous.logger
    }

    var entries: [Entry] { lock.withLock { lines } }
    var messages: [String] { entries.map(\.message) }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let entry = Entry(
            level: event.level, message: "\(event.message)",
            metadata: (event.metadata ?? [:]).mapValues { "\($0)" })
        lock.withLock { lines.append(entry) }
    }
}
