internal import CSQLite
import Foundation
import Logging
import Synchronization

/// One SQLite database connection.
///
/// Not thread-safe by itself: the ``Store`` that owns a connection serializes
/// every use of it. It is opened in multi-thread mode (`SQLITE_OPEN_NOMUTEX`)
/// because that serialization already exists one level up.
final class Connection {
    /// The raw handle. Only the SQLite layer reads it.
    private(set) var handle: OpaquePointer?
    /// Where the database lives, or `nil` for an in-memory database.
    let path: String?
    private var cache: [String: Statement] = [:]
    // unsafe(box-lives-while-registered): retained from the open on, while
    // the trace callback may be installed, released by `close()` after the
    // connection is closed.
    private var traceBox: Unmanaged<TraceBox>?
    /// Whether SQLite's profile callback is installed now
    /// (``armTraceIfListened()``): only while someone listens.
    private(set) var isTraceArmed = false
    /// The ``TraceListeners`` generation the trace was last armed for,
    /// shared with this connection's statements, which compare it before
    /// each step.
    let traceArming = TraceArming()
    /// For a connection opened `immutable`: the file as it was just before
    /// the open, to tell whether anything changed it since (see
    /// ``immutableFileChange()``).
    private let immutableIdentity: FileIdentity?
    /// The busy timeout set at open, in milliseconds, which
    /// ``withoutWaiting(_:)`` puts back.
    private let busyTimeoutMilliseconds: Int32
    /// Litestream's VFS exports, for a replica connection registered with
    /// it (`Connection+Litestream.swift`); `nil` otherwise.
    var litestream: LitestreamExports?

    /// Receives every statement SQLite runs on this connection with its
    /// duration in nanoseconds (SQLite's `SQLITE_TRACE_PROFILE`).
    typealias TraceHandler = @Sendable (_ sql: String, _ nanoseconds: Int64) -> Void
    /// Whether anyone listens: asked when the connection is taken for use
    /// and before a statement runs once ``TraceListeners`` changed, to
    /// install or remove SQLite's callback (``armTraceIfListened()``), and
    /// before each traced statement's text is turned into a `String`, for a
    /// listener that left while a statement ran.
    typealias TraceFilter = @Sendable () -> Bool

    struct OpenOptions {
        var readOnly = false
        var create = true
        var busyTimeout: Duration = .seconds(10)
        /// Opens the file as `immutable` (read-only, no locks, no `-wal` or
        /// `-shm` created): for reading a store that nothing else has open, or
        /// that sits on read-only media (https://sqlite.org/uri.html#uriimmutable).
        var immutable = false
        /// The SQLite VFS to open the database through, by its registered
        /// name (`nil`: the default VFS). A read replica names `litestream`.
        var vfs: String? = nil
        /// Query parameters of the open's URI (https://sqlite.org/uri.html),
        /// in order: SQLite hands the ones it does not know to the VFS, as
        /// Litestream's reads `replica_url` and `poll_interval`.
        var uriParameters: [(name: String, value: String)] = []
    }

    /// Opens `path` (or a private in-memory database when `path` is `nil`).
    init(
        path: String?, options: OpenOptions = OpenOptions(), trace: TraceHandler? = nil,
        traceFilter: @escaping TraceFilter = { true }
    ) throws {
        self.path = path
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        flags |= options.readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if options.create && !options.readOnly { flags |= SQLITE_OPEN_CREATE }
        var name = path ?? ":memory:"
        immutableIdentity = options.immutable ? path.flatMap(FileIdentity.init(path:)) : nil
        var parameters = options.uriParameters
        if options.immutable, path != nil { parameters.insert(("immutable", "1"), at: 0) }
        if !parameters.isEmpty, let path {
            flags |= SQLITE_OPEN_URI
            name =
                "file:" + Self.uriEscaped(path) + "?"
                + parameters.map { Self.uriComponent($0.name) + "=" + Self.uriComponent($0.value) }.joined(separator: "&")
        }
        var db: OpaquePointer?
        let result = sqlite3_open_v2(name, &db, flags, options.vfs)
        guard result == SQLITE_OK, let db else {
            let error = SQLiteError(resultCode: result, db: db, sql: nil)
            sqlite3_close_v2(db)
            throw error
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        let milliseconds =
            options.busyTimeout.components.seconds * 1000
            + options.busyTimeout.components.attoseconds / 1_000_000_000_000_000
        busyTimeoutMilliseconds = Int32(clamping: milliseconds)
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        if let trace {
            traceBox = Unmanaged.passRetained(TraceBox(handler: trace, filter: traceFilter))  // unsafe(box-lives-while-registered)
            armTraceIfListened()
        }
    }

    deinit {
        close()
    }

    /// For a connection opened `immutable`, which takes no locks
    /// (https://sqlite.org/uri.html#uriimmutable): what changed its file
    /// since the open — replaced, written, or open for writing elsewhere
    /// now (a `-wal` or `-journal` beside it) — or `nil` when nothing did.
    /// Always `nil` for other connections: SQLite's locks keep their reads
    /// consistent.
    func immutableFileChange() -> String? {
        guard let immutableIdentity, let path else { return nil }
        guard let now = FileIdentity(path: path) else { return "was removed" }
        if now.device != immutableIdentity.device || now.inode != immutableIdentity.inode { return "was replaced" }
        if now != immutableIdentity { return "was written" }
        if ["-wal", "-journal"].contains(where: { FileManager.default.fileExists(atPath: path + $0) }) {
            return "is open for writing in another connection"
        }
        return nil
    }

    var isOpen: Bool { handle != nil }

    /// Finalizes every cached statement and closes the connection.
    func close() {
        for statement in cache.values { statement.finalize() }
        cache.removeAll()
        unregisterFromLitestream()
        if let handle {
            sqlite3_close_v2(handle)
            self.handle = nil
        }
        traceBox?.release()
        traceBox = nil
    }

    func openHandle(sql: String?) throws -> OpaquePointer {
        guard let handle else {
            throw SQLiteError(extendedCode: SQLITE_MISUSE, message: "the connection is closed", sql: sql)
        }
        return handle
    }

    // MARK: Statements

    /// A prepared statement for `sql`, reused across calls. The statement is
    /// reset and its bindings cleared before it is handed out.
    func cachedStatement(_ sql: String) throws -> Statement {
        if let statement = cache[sql] {
            statement.reset()
            return statement
        }
        let statement = try prepare(sql, persistent: true)
        cache[sql] = statement
        return statement
    }

    /// A statement that is not cached; the caller finalizes it.
    func makeStatement(_ sql: String) throws -> Statement {
        try prepare(sql, persistent: false)
    }

    private func prepare(_ sql: String, persistent: Bool) throws -> Statement {
        let db = try openHandle(sql: sql)
        var statement: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let result = sql.withCString { text in
            sqlite3_prepare_v3(db, text, -1, flags, &statement, nil)
        }
        guard result == SQLITE_OK, let statement else {
            throw SQLiteError(resultCode: result, db: db, sql: sql)
        }
        return Statement(handle: statement, sql: sql, connection: self, traceArming: traceArming)
    }

    /// Runs one or more statements without arguments (`sqlite3_exec`).
    func execute(_ sql: String) throws {
        let db = try openHandle(sql: sql)
        if !traceArming.isCurrent { armTraceIfListened() }
        var errorMessage: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(db, sql, nil, nil, &errorMessage)
        if result != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
            sqlite3_free(errorMessage)
            throw SQLiteError(extendedCode: sqlite3_extended_errcode(db), message: message, sql: sql)
        }
    }

    /// Runs a cached statement with bound arguments, ignoring rows.
    func execute(_ sql: String, _ arguments: [SQLValue]) throws {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments)
        try statement.run()
    }

    /// The rows of a query, each as its column values.
    func rows(_ sql: String, _ arguments: [SQLValue] = []) throws -> [[SQLValue]] {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments)
        var rows: [[SQLValue]] = []
        let columns = Int32(statement.columnCount)
        while try statement.step() {
            rows.append((0..<columns).map { statement.value(at: $0) })
        }
        return rows
    }

    /// The first column of the first row, or `nil` when there is no row.
    func scalar(_ sql: String, _ arguments: [SQLValue] = []) throws -> SQLValue? {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        return try statement.step() ? statement.value(at: 0) : nil
    }

    var lastInsertedRowID: Int64 {
        handle.map { sqlite3_last_insert_rowid($0) } ?? 0
    }

    var changes: Int {
        handle.map { Int(sqlite3_changes64($0)) } ?? 0
    }

    /// Where this connection's view of the file stands (``StoreStamp``):
    /// SQLite's data version of `main` as its pager last saw it
    /// (`SQLITE_FCNTL_DATA_VERSION`: the pager's own counter, which every
    /// commit moves — another connection's, seen when a transaction starts
    /// here, so outside one it may lag, never lead, and this connection's
    /// own, which `PRAGMA data_version` subtracts again), and the rows it
    /// ever inserted, updated or deleted (`sqlite3_total_changes64`, rolled
    /// back or not, committed or not). Runs no statement. `nil` when closed.
    var stamp: StoreStamp? {
        guard let handle else { return nil }
        var version: UInt32 = 0
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_DATA_VERSION, &version) == SQLITE_OK else { return nil }
        return StoreStamp(dataVersion: version, totalChanges: sqlite3_total_changes64(handle))
    }

    var isInTransaction: Bool {
        handle.map { sqlite3_get_autocommit($0) == 0 } ?? false
    }

    /// Makes closing this connection leave the `-wal` and `-shm` files where
    /// they are instead of deleting them by name (`SQLITE_FCNTL_PERSIST_WAL`):
    /// for a connection whose files were renamed while it was open, so that
    /// closing it cannot delete files that a new store has since created
    /// under the old names (https://sqlite.org/c3ref/c_fcntl_begin_atomic_write.html).
    func keepWALFilesOnClose() {
        guard let handle else { return }
        var persist: Int32 = 1
        _ = sqlite3_file_control(handle, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
    }

    /// Runs `body` with no busy handler: a lock another connection holds
    /// fails at once with `SQLITE_BUSY` (or, for a checkpoint, reports itself
    /// incomplete) instead of being waited for up to the busy timeout
    /// (https://sqlite.org/c3ref/busy_timeout.html).
    func withoutWaiting<T>(_ body: () throws -> T) rethrows -> T {
        guard let handle else { return try body() }
        sqlite3_busy_timeout(handle, 0)
        defer { sqlite3_busy_timeout(handle, busyTimeoutMilliseconds) }
        return try body()
    }

    /// Runs `body` again while it fails with `SQLITE_BUSY` that SQLite
    /// returned without waiting, up to the busy timeout, sleeping a little
    /// longer each time.
    ///
    /// SQLite skips its busy handler where waiting could deadlock: a
    /// statement that reads and then needs the write lock, as `PRAGMA
    /// journal_mode = WAL` does on a new file, fails at once while another
    /// connection (another process creating the same store) holds it
    /// (https://sqlite.org/c3ref/busy_handler.html). Only for statements
    /// that hold nothing between attempts: outside a transaction.
    func retryingWhenBusy<T>(_ body: () throws -> T) throws -> T {
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int(busyTimeoutMilliseconds))
        var pause = Duration.milliseconds(1)
        while true {
            do {
                return try body()
            } catch let error as SQLiteError where error.isBusy && clock.now < deadline && !isInTransaction {
                Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) / 1e18 + Double(pause.components.seconds))
                pause = min(pause * 2, .milliseconds(50))
            }
        }
    }

    // MARK: Transactions

    enum TransactionKind: String {
        case deferred = "DEFERRED"
        case immediate = "IMMEDIATE"
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back
    /// when it throws. Writes use `BEGIN IMMEDIATE` so that a busy writer is
    /// waited for at the start rather than failing at the first write.
    func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        try execute("BEGIN \(kind.rawValue) TRANSACTION")
        do {
            let result = try body()
            try execute("COMMIT TRANSACTION")
            return result
        } catch {
            // A failed COMMIT may already have rolled back; only roll back what is open.
            if isInTransaction { try? execute("ROLLBACK TRANSACTION") }
            throw error
        }
    }

    /// Runs `body` inside a savepoint, so that a failure undoes only its part.
    func savepoint<T>(_ name: String, _ body: () throws -> T) throws -> T {
        try execute("SAVEPOINT \"\(name)\"")
        do {
            let result = try body()
            try execute("RELEASE SAVEPOINT \"\(name)\"")
            return result
        } catch {
            try? execute("ROLLBACK TO SAVEPOINT \"\(name)\"")
            try? execute("RELEASE SAVEPOINT \"\(name)\"")
            throw error
        }
    }

    // MARK: Tracing

    private final class TraceBox {
        let handler: TraceHandler
        let filter: TraceFilter
        init(handler: @escaping TraceHandler, filter: @escaping TraceFilter) {
            self.handler = handler
            self.filter = filter
        }
    }

    /// Installs SQLite's profile callback while the trace filter says someone
    /// listens, and removes it once nobody does. Installed, it costs every
    /// statement two clock reads and a call (`SQLITE_TRACE_PROFILE`), so it
    /// is not left on for nobody. The store calls this each time it takes
    /// the connection for use (a checkout, a read on a pinned connection),
    /// and a statement calls it before it steps when ``TraceListeners``
    /// changed since the last call: a listener that starts while another
    /// thread holds the connection hears every statement that thread runs
    /// from then on, as it would with the callback always installed. A
    /// statement already running when the listener started is not reported.
    func armTraceIfListened() {
        // The generation first: a listener that starts after this load moves
        // it, and the next statement asks the filter again.
        traceArming.seen.store(TraceListeners.generation, ordering: .relaxed)
        guard let traceBox, let handle else { return }
        let wanted = traceBox.takeUnretainedValue().filter()  // unsafe(box-lives-while-registered)
        guard wanted != isTraceArmed else { return }
        isTraceArmed = wanted
        guard wanted else {
            sqlite3_trace_v2(handle, 0, nil, nil)
            return
        }
        sqlite3_trace_v2(
            handle, UInt32(SQLITE_TRACE_PROFILE),
            { _, context, statement, nanoseconds in
                guard let context, let statement else { return 0 }
                let box = Unmanaged<TraceBox>.fromOpaque(context).takeUnretainedValue()  // unsafe(box-lives-while-registered)
                guard box.filter() else { return 0 }
                // sqlite3_sql is the text as prepared: bound values never appear.
                let sql = sqlite3_sql(OpaquePointer(statement)).map { String(cString: $0) } ?? ""
                let duration = nanoseconds?.load(as: Int64.self) ?? 0
                box.handler(sql, duration)
                return 0
            },
            traceBox.toOpaque())
    }
}

/// Counts the changes of who may listen to SQL — a store's statement
/// observers, the log level — so that a connection asks its trace filter
/// again (``Connection/armTraceIfListened()``) only after one: between
/// changes a statement pays one comparison, not the filter.
enum TraceListeners {
    private static let changes = Atomic<UInt64>(0)

    /// Called after someone started or stopped listening: every connection
    /// asks its filter again before its next statement.
    static func changed() {
        changes.add(1, ordering: .releasing)
    }

    /// The number of changes so far. Acquiring: a connection that reads a
    /// new value sees the listener state stored before it was counted.
    static var generation: UInt64 { changes.load(ordering: .acquiring) }
}

/// The ``TraceListeners`` generation one connection's trace was last armed
/// for, held by the connection and each of its statements (a statement
/// reaches it without going through its unowned connection). Atomic only
/// so that it can be read without exclusivity bookkeeping: like the
/// connection, it is used by one thread at a time.
final class TraceArming: Sendable {
    /// `UInt64.max` until the first arming: the first statement asks.
    let seen = Atomic<UInt64>(.max)

    /// Whether no listener came or went since the last arming.
    @inline(__always)
    var isCurrent: Bool { seen.load(ordering: .relaxed) == TraceListeners.generation }
}

/// What `stat` says about a file that changes when anything writes it.
struct FileIdentity: Equatable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modifiedSeconds: Int
    let modifiedNanoseconds: Int

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        #if canImport(Darwin)
        modifiedSeconds = Int(info.st_mtimespec.tv_sec)
        modifiedNanoseconds = Int(info.st_mtimespec.tv_nsec)
        #else
        modifiedSeconds = Int(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
        #endif
    }
}

extension Connection {
    /// `path` for a `file:` URI: everything but unreserved characters and `/`
    /// percent-encoded, so `?`, `#` and `%` in a folder name stay part of the path.
    static func uriEscaped(_ path: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")
        return path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
    }

    /// `text` as one query key or value of a URI: everything but unreserved
    /// characters percent-encoded, `/` included, so `&`, `=` and `#` in a
    /// value never end it.
    static func uriComponent(_ text: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// The SQLite library version linked at run time.
    static var sqliteVersion: String { String(cString: sqlite3_libversion()) }
}

/// Where a connection's view of the file stands (``Connection/stamp``); for
/// a store, its writer's (`Store.idleStamp()`). When two stamps of one
/// store are equal, nothing changed the file between them — nothing
/// committed (another stack of this process, another process, this stack:
/// each moves the data version), and this stack wrote nothing, not even in
/// a transaction still open (its only writing connection is the writer,
/// whose changed rows are counted). Taken at a deletion before the read of
/// its store-side cascade and again in the save's transaction, before its
/// first statement: equal, the rows are as the deletion read them
/// (Docs/Internals/Architecture.md, "The store-side cascade's fast path").
///
/// The data version outside a transaction is the one the writer last
/// saw, which may lag: a commit it has not seen yet makes the save's stamp
/// differ, and the save takes the plain path. The counted rows do not see
/// schema changes, which the library's contract leaves to migrations.
struct StoreStamp: Equatable {
    let dataVersion: UInt32
    let totalChanges: Int64
}
