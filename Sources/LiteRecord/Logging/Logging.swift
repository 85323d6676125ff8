public import Logging
import Synchronization

/// The library's logging settings, shared by every stack.
enum LogSettings {
    static let state = Locked<(level: Logger.Level, logger: Logger)>(
        (
            .warning,
            {
                var logger = Logger(label: "LiteRecord")
                logger.logLevel = .warning
                return logger
            }()
        ))

    /// Whether SQL statements are logged (the level is `.trace`): an atomic
    /// flag, because SQLite's trace callback asks for every statement.
    private static let tracing = Atomic<Bool>(false)

    static var tracesSQL: Bool { tracing.load(ordering: .relaxed) }

    static func setLevel(_ level: Logger.Level) {
        state.withLock { state in
            state.level = level
            tracing.store(level <= .trace, ordering: .relaxed)
            TraceListeners.changed()
        }
    }

    /// The logger to use now, at the current level.
    static var current: Logger {
        state.withLock { state in
            var logger = state.logger
            logger.logLevel = state.level
            return logger
        }
    }
}

extension RecordStack {
    /// How much LiteRecord logs; `.warning` by default. At `.trace` every SQL
    /// statement is logged with its duration; at `.info` migrations and store
    /// creation; at `.debug` each save's change counts.
    ///
    /// ```swift
    /// RecordStack.logLevel = .trace
    /// ```
    ///
    /// The level takes effect at once, for open stacks too.
    public static var logLevel: Logger.Level {
        get { LogSettings.state.withLock { $0.level } }
        set { LogSettings.setLevel(newValue) }
    }

    /// The logger LiteRecord writes to (label `LiteRecord`); replace it to send
    /// the library's messages elsewhere. Its level is ``logLevel``.
    public static var logger: Logger {
        get { LogSettings.current }
        set { LogSettings.state.withLock { $0.logger = newValue } }
    }
}
