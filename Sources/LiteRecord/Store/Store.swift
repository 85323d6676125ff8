import Foundation
import Logging
import Synchronization

/// One open store: a SQLite file (or in-memory database), its model, and the
/// connection every context of the stack goes through.
///
/// Every use of the connection is serialized by `lock`. The lock is recursive
/// because a write transaction runs user code (a `write` closure) that may
/// fetch through the same connection on the same thread.
final class Store: @unchecked Sendable {
    // @unchecked: `connection` is only touched while `lock` is held, which
    // serializes all access; every other stored property is immutable or a Mutex.
    enum Location: Sendable, Equatable {
        case file(URL)
        case memory
    }

    let location: Location
    let model: Model
    let logger: Logger
    private let lock = NSRecursiveLock()
    private var connection: Connection?
    private let observers = SQLObservers()
    /// Paths of files moved aside at open, when the model did not match.
    private(set) var movedAsideFiles: [URL] = []
    /// What every access throws when the store was never opened (the facade's
    /// placeholder before setup).
    private let unavailableError: LiteRecordError?

    var url: URL? {
        if case .file(let url) = location { url } else { nil }
    }

    /// A human-readable name for messages: the path, or "in-memory store".
    var displayName: String { url?.path ?? "in-memory store" }

    init(location: Location, model: Model, migration: MigrationMode, onMismatch: ModelMismatchPolicy, logger: Logger) throws(LiteRecordError) {
        self.location = location
        self.model = model
        self.logger = logger
        self.unavailableError = nil
        if case .file(let url) = location {
            try Self.createParentDirectory(of: url)
        }
        var connection = try openConnection()
        do {
            try prepare(connection, migration: migration)
        } catch let error where error.kind == .modelMismatch && onMismatch == .moveAsideAndRecreate && url != nil {
            connection.close()
            movedAsideFiles = try moveAside()
            logger.warning("store did not match the model; moved aside", metadata: ["files": "\(movedAsideFiles.map(\.path))"])
            connection = try openConnection()
            try prepare(connection, migration: .none)
        } catch {
            connection.close()
            throw error
        }
        self.connection = connection
    }

    init(unavailable error: LiteRecordError) {
        location = .memory
        model = Model()
        logger = LogSettings.current
        unavailableError = error
    }

    deinit {
        connection?.close()
    }

    private static func createParentDirectory(of url: URL) throws(LiteRecordError) {
        let folder = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw LiteRecordError(.storeUnavailable, "cannot create the store's folder \(folder.path): \(error.localizedDescription)")
        }
    }

    private func openConnection() throws(LiteRecordError) -> Connection {
        let connection: Connection
        do {
            connection = try Connection(path: url?.path, trace: makeTraceHandler())
            // Predicates translate to SQL that relies on these collations and functions.
            try SQLFunctions.install(on: connection)
        } catch {
            throw LiteRecordError.wrap(error, "opening the store at \(displayName)")
        }
        return connection
    }

    private func makeTraceHandler() -> Connection.TraceHandler {
        let logger = self.logger
        let observers = self.observers
        return { sql, nanoseconds in
            if logger.logLevel <= .trace {
                logger.trace("\(sql)", metadata: ["ms": "\(Double(nanoseconds) / 1_000_000)"])
            }
            observers.notify(sql)
        }
    }

    /// Checks the store against the model: creates a new store's schema,
    /// accepts a matching one, migrates or refuses a different one.
    private func prepare(_ connection: Connection, migration: MigrationMode) throws(LiteRecordError) {
        try withErrorContext("opening the store at \(displayName)") {
            try connection.execute("PRAGMA foreign_keys = ON")
            // Read what the file holds before anything writes to it, so a refused
            // store stays byte-identical.
            let stored = try connection.storedModel()
            switch stored {
            case .empty:
                try enableWAL(connection)
                try connection.transaction { try connection.createSchema(for: model) }
                logger.info("created store", metadata: ["store": "\(displayName)", "model": "\(model.fingerprint)"])
            case .foreign(let tables):
                throw LiteRecordError(
                    .modelMismatch,
                    "\(displayName) is a SQLite database that LiteRecord did not create (tables: \(tables.joined(separator: ", "))); it was left untouched")
            case .model(let fingerprint, let schema):
                if fingerprint == model.fingerprint && schema.canonicalText == model.schema.canonicalText {
                    try enableWAL(connection)
                    return
                }
                try handleMismatch(connection, stored: schema, migration: migration)
            }
        }
    }

    private func handleMismatch(_ connection: Connection, stored: ModelSchema, migration: MigrationMode) throws {
        let changes = stored.changes(to: model.schema)
        switch migration {
        case .none:
            let summary = changes.isEmpty ? "the model fingerprints differ" : changes.summary
            throw LiteRecordError(
                .modelMismatch,
                "\(displayName) was written by a different model:\n\(summary)\nUse setupAutoMigrating (or migration: .automatic) to migrate it, or onModelMismatch: .moveAsideAndRecreate to start over; the store was left untouched")
        case .automatic:
            try enableWAL(connection)
            try Migrator(connection: connection, store: self, from: stored, to: model, plan: nil).run()
        case .plan(let plan):
            try enableWAL(connection)
            try Migrator(connection: connection, store: self, from: stored, to: model, plan: plan).run()
        }
    }

    private func enableWAL(_ connection: Connection) throws {
        guard url != nil else { return }
        // WAL lets readers run beside the writer; NORMAL sync is safe in WAL mode
        // (https://sqlite.org/pragma.html#pragma_synchronous).
        try connection.execute("PRAGMA journal_mode = WAL")
        try connection.execute("PRAGMA synchronous = NORMAL")
    }

    /// Renames the store file and its `-wal`/`-shm` companions with a timestamp
    /// suffix, keeping `-wal`/`-shm` next to their renamed main file.
    private func moveAside() throws(LiteRecordError) -> [URL] {
        guard let url else { return [] }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let base = url.path + ".mismatch-" + formatter.string(from: Date())
        var target = base
        var attempt = 1
        while FileManager.default.fileExists(atPath: target) {
            attempt += 1
            target = "\(base)-\(attempt)"
        }
        var moved: [URL] = []
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: url.path + suffix) {
            do {
                try FileManager.default.moveItem(atPath: url.path + suffix, toPath: target + suffix)
                moved.append(URL(fileURLWithPath: target + suffix))
            } catch {
                throw LiteRecordError(.storeUnavailable, "cannot move \(url.path + suffix) aside: \(error.localizedDescription)")
            }
        }
        return moved
    }

    // MARK: Access

    /// Runs `body` with exclusive use of the connection.
    func withConnection<T>(_ operation: @autoclosure () -> String, _ body: (Connection) throws -> T) throws(LiteRecordError) -> T {
        lock.lock()
        defer { lock.unlock() }
        guard let connection else {
            throw unavailableError
                ?? LiteRecordError(.storeUnavailable, "\(operation()) failed: the store \(displayName) is closed")
        }
        return try withErrorContext(operation()) { try body(connection) }
    }

    /// Runs `body` in one write transaction (`BEGIN IMMEDIATE`), or inside a
    /// savepoint when a transaction is already open on this thread.
    func write<T>(_ operation: @autoclosure () -> String, _ body: (Connection) throws -> T) throws(LiteRecordError) -> T {
        try withConnection(operation()) { connection in
            if connection.isInTransaction {
                return try connection.savepoint("literecord_nested") { try body(connection) }
            }
            return try connection.transaction(.immediate) { try body(connection) }
        }
    }

    /// Whether the store is open.
    var isOpen: Bool {
        lock.lock()
        defer { lock.unlock() }
        return connection != nil
    }

    /// Closes the connection after any running operation finishes. Closing
    /// the last connection checkpoints the WAL into the main file.
    func close() {
        lock.lock()
        defer { lock.unlock() }
        connection?.close()
        connection = nil
    }

    // MARK: Observing SQL

    /// Calls `observer` with every statement run on this store until the
    /// returned token is passed to ``removeObserver(_:)``.
    func addObserver(_ observer: @escaping @Sendable (String) -> Void) -> UInt64 {
        observers.add(observer)
    }

    func removeObserver(_ token: UInt64) {
        observers.remove(token)
    }
}

/// The statement observers of a store, callable from SQLite's trace callback
/// on whichever thread runs the statement.
final class SQLObservers: Sendable {
    private let state = Mutex<(next: UInt64, observers: [UInt64: @Sendable (String) -> Void])>((0, [:]))

    func add(_ observer: @escaping @Sendable (String) -> Void) -> UInt64 {
        state.withLock { state in
            state.next += 1
            state.observers[state.next] = observer
            return state.next
        }
    }

    func remove(_ token: UInt64) {
        _ = state.withLock { $0.observers.removeValue(forKey: token) }
    }

    func notify(_ sql: String) {
        let current = state.withLock { $0.observers.isEmpty ? [] : Array($0.observers.values) }
        for observer in current { observer(sql) }
    }
}
