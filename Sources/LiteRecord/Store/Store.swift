import Foundation
import Logging
import Synchronization

/// One open store: a SQLite file (or in-memory database), its model, and the
/// connection every context of the stack goes through.
///
/// Every use of the connection is serialized by `gate` (``WriterGate``),
/// which the holder may take again: a write transaction runs user code (a
/// `write` closure) that may fetch through the same connection on the same
/// thread. The connection and what else only the holder touches live in the
/// gate's ``WriterState``, reached through ``withWriter(_:_:)`` or, by code
/// already holding the gate, ``writer``.
///
/// The type is split by what it does: this file opens the connections;
/// `Store+Open.swift` checks, creates and migrates the store;
/// `Store+MoveAside.swift` renames a mismatching store; `Store+WriterGate.swift`
/// serializes use of the writer; `Store+Close.swift` closes and checkpoints.
final class Store: @unchecked Sendable {
    // @unchecked: the writer connection is part of the state `gate` guards
    // (reachable only by its holder, asserted in debug builds); `readers`,
    // `movedAsideFiles` and `migrationReport` are only written during init;
    // every other stored property is immutable, atomic or a lock.
    enum Location: Sendable, Equatable {
        case file(URL)
        case memory
        /// A Litestream replica read in place through its VFS (`Store+Replica.swift`).
        case replica(URL)
    }

    let location: Location
    let model: Model
    /// Opened with `readOnly: true`: reads only, every write is refused with
    /// `.readOnlyStore`, and the file is never changed.
    let isReadOnly: Bool
    /// Whether LiteRecord checkpoints the WAL (``CheckpointPolicy``).
    let checkpoints: CheckpointPolicy
    /// This store's ``RecordStack/includesValuesInDescriptions``: `nil`
    /// follows the process-wide switch (`Store+ErrorValues.swift`).
    let includesValuesInDescriptions = Locked<Bool?>(nil)
    /// The library's logger at the current ``RecordStack/logLevel``, read on
    /// each use so that a level set while the store is open takes effect.
    var logger: Logger { LogSettings.current }
    /// The writer's lock and the state only its holder touches.
    let gate = WriterGate()
    /// The state only the holder of `gate` touches; asserts in debug builds
    /// that the calling thread holds it.
    var writer: WriterState { gate.state }
    /// For the test that compares the two: every new row's record id is
    /// named by the insert rather than left to SQLite where SQLite picks the
    /// same (``RecordIDAllocator``). Off outside that test.
    let namesEveryRecordIDFlag = Atomic<Bool>(false)
    var namesEveryRecordID: Bool { namesEveryRecordIDFlag.load(ordering: .relaxed) }
    /// For the test that compares the two: a save deletes its rows one
    /// statement per row (the plain path) rather than by row-id lists
    /// (``RowIDListDeletes``). Off outside that test.
    let deletesRowByRowFlag = Atomic<Bool>(false)
    var deletesRowByRow: Bool { deletesRowByRowFlag.load(ordering: .relaxed) }
    /// For the test that compares the two: off, a save deletes the rows of a
    /// store-side cascade by row id at the versions read at the deletion even
    /// when nothing has changed the store since that read (the plain path,
    /// ``StoreStamp``). On outside that test.
    let trustsUnchangedCascadeReadsFlag = Atomic<Bool>(true)
    var trustsUnchangedCascadeReads: Bool { trustsUnchangedCascadeReadsFlag.load(ordering: .relaxed) }
    let observers = SQLObservers()
    /// Reader connections for WAL file stores; in-memory stores read through
    /// the writer connection (a private in-memory database has only one).
    private(set) var readers: ReaderPool?
    /// The `write` calls made and not finished yet, queued or running:
    /// ``close()`` lets them finish first.
    let queuedWrites = InFlightWork()
    /// Subscribers of ``ChangeSet``s, fed in commit order.
    let changes = ChangeBroadcaster()
    /// The observed queries of this store (`RecordContext.observe`).
    let observations: ObservationCenter
    /// Copies a WAL past its bound back off the writer's path.
    let walCatchUp = WALCatchUp()
    /// For a replica: the connection that follows it (``ReplicaWatcher``).
    let replicaWatcher: ReplicaWatcher?
    /// Paths of files moved aside at open, when the model did not match.
    /// Written only during init.
    var movedAsideFiles: [URL] = []
    /// What the migration run at open did, if one ran. Written only during init.
    var migrationReport: MigrationReport?
    /// What every access throws when the store was never opened (the facade's
    /// placeholder before setup).
    let unavailableError: LiteRecordError?

    var url: URL? {
        if case .file(let url) = location { url } else { nil }
    }

    /// A human-readable name for messages: the path, "in-memory store", or
    /// "replica <URL>".
    var displayName: String {
        switch location {
        case .file(let url): url.path
        case .memory: "in-memory store"
        case .replica(let url): "replica \(LitestreamVFS.spelling(url))"
        }
    }

    /// The replica's location, for a replica store.
    var replicaURL: URL? {
        if case .replica(let url) = location { url } else { nil }
    }

    init(location: Location, model: Model, options: StoreOpenOptions = StoreOpenOptions()) throws(LiteRecordError) {
        self.location = location
        self.model = model
        self.unavailableError = nil
        self.isReadOnly = options.readOnly
        self.checkpoints = options.checkpoints
        if case .replica = location { replicaWatcher = ReplicaWatcher() } else { replicaWatcher = nil }
        observations = ObservationCenter(path: Self.observationPath(location))
        // No other thread can reach the store yet; held so that opening
        // touches the writer's state as every later use does.
        gate.acquire()
        defer { gate.release() }
        if case .replica = location {
            guard let litestream = options.litestream else {
                throw LiteRecordError(.storeUnavailable, "\(displayName): Litestream's VFS is not loaded")
            }
            writer.connection = try openReplica(litestream, snapshotTimeout: options.snapshotTimeout)
        } else if options.readOnly {
            writer.connection = try openReadOnly()
        } else {
            let connection = try openWriter(options)
            writer.connection = connection
            try prepareWriter(connection, history: options.history)
        }
    }

    /// What observers of this store share a commit signal by: the file's
    /// resolved path; a replica's commits come from another machine's
    /// process and are polled by Litestream's transaction id
    /// (``dataVersion(wait:)``).
    private static func observationPath(_ location: Location) -> String? {
        switch location {
        case .file(let url): url.resolvingSymlinksInPath().path
        case .memory: nil
        case .replica(let url): "litestream-replica:" + url.absoluteString
        }
    }

    /// Opens (creating, migrating or moving aside as `options` say) the
    /// writer connection of a file or in-memory store, and a file store's
    /// reader pool.
    private func openWriter(_ options: StoreOpenOptions) throws(LiteRecordError) -> Connection {
        guard case .file(let url) = location else {
            return try openWritable(migration: options.migration, onMismatch: options.onMismatch)
        }
        let creation = try StoreFileCreation.prepare(url)
        StoreFileCreation.afterPreparing?(url)
        let writer: Connection
        do {
            writer = try openWritable(migration: options.migration, onMismatch: options.onMismatch)
        } catch {
            // A store that could not be created must not be left behind: the
            // next open would take the empty file for a new, empty store.
            // Only what this open created goes (see StoreFileCreation): the
            // file it made, or the new one after the old was moved aside.
            creation.removeLeftovers(after: error, movedAside: !movedAsideFiles.isEmpty)
            throw error
        }
        readers = makeReaderPool(memoryMappedReadSize: options.memoryMappedReadSize)
        return writer
    }

    /// The writer's checks and history, once it is open: closes it when
    /// history cannot be set up as asked.
    private func prepareWriter(_ connection: Connection, history: HistoryOptions) throws(LiteRecordError) {
        if ChangeAudit.enabledByEnvironment {
            let audit = ChangeAudit(model: model)
            connection.reportRowChanges(into: audit.log)
            writer.changeAudit = audit
        }
        do {
            try configureHistory(history, on: connection)
        } catch {
            connection.close()
            writer.connection = nil
            throw error
        }
    }

    init(unavailable error: LiteRecordError) {
        isReadOnly = false
        checkpoints = .automatic
        replicaWatcher = nil
        location = .memory
        model = Model()
        unavailableError = error
        observations = ObservationCenter(path: nil)
    }

    deinit {
        // No other thread can reach the store now, so the gate is free; it
        // is taken all the same (uncontended), so that the connection is
        // reached the one way it is everywhere else: through the gate.
        gate.withState { $0.connection?.close() }
        replicaWatcher?.close()
        // Released without close(): a `for await` over the change stream or an
        // observation would otherwise wait for an end that never comes.
        changes.finish()
        observations.finish()
    }

    /// The pool of reader connections of a file store.
    private func makeReaderPool(memoryMappedReadSize mappedSize: Int) -> ReaderPool {
        return ReaderPool(
            maximumCount: 4, writerGate: gate,
            open: { [weak self] () throws(LiteRecordError) -> Connection in
                guard let self else { throw LiteRecordError(.storeUnavailable, "the store was released") }
                let reader = try self.openReader()
                do throws(LiteRecordError) {
                    try withErrorContext("opening a reader") {
                        // A reader never writes; make SQLite enforce it.
                        try reader.execute("PRAGMA query_only = ON")
                        if mappedSize > 0 { try reader.execute("PRAGMA mmap_size = \(mappedSize)") }
                    }
                } catch {
                    reader.close()
                    throw error
                }
                return reader
            })
    }

    /// Opens a reader connection. It never creates the file: when the store
    /// was moved or deleted while the stack is open, a read fails instead of
    /// leaving an empty database at the path for the next open to take as a
    /// new store.
    private func openReader() throws(LiteRecordError) -> Connection {
        do {
            return try openConnection(Connection.OpenOptions(create: false))
        } catch {
            if let url, !FileManager.default.fileExists(atPath: url.path) {
                throw LiteRecordError(
                    .storeUnavailable,
                    "opening a reader of \(url.path) failed: the file is no longer there (it was moved or deleted while the stack was open); no file was created. Close the stack and open the store again"
                )
            }
            throw error
        }
    }

    /// The largest `-wal` file a checkpoint leaves behind: SQLite truncates
    /// the file to this size when it resets the log after a checkpoint, so one
    /// burst of writes does not keep a large file for ever
    /// (https://sqlite.org/pragma.html#pragma_journal_size_limit).
    static let walSizeLimit = 16 << 20

    func openConnection(_ options: Connection.OpenOptions = .init()) throws(LiteRecordError) -> Connection {
        let connection: Connection
        do {
            let observers = self.observers
            connection = try Connection(
                path: replicaURL == nil ? url?.path : Self.replicaFileName, options: options, trace: makeTraceHandler(),
                traceFilter: { LogSettings.tracesSQL || observers.isObserved })
            // Predicates translate to SQL that relies on these collations and functions.
            try SQLFunctions.install(on: connection)
            if url != nil && !options.readOnly {
                try connection.execute("PRAGMA journal_size_limit = \(Self.walSizeLimit)")
            }
            if checkpoints == .leftToReplicator {
                // Any connection may be the last to close, and the last one checkpoints.
                try connection.setCheckpointOnClose(false)
                // Commits never checkpoint, from the first one on (a migration's
                // included): the replicator copies WAL frames before it folds
                // them into the main file itself.
                if !options.readOnly { try connection.execute("PRAGMA wal_autocheckpoint = 0") }
            }
        } catch {
            throw LiteRecordError.wrap(error, "opening the store at \(displayName)")
        }
        return connection
    }

    private func makeTraceHandler() -> Connection.TraceHandler {
        let observers = self.observers
        return { sql, nanoseconds in
            if LogSettings.tracesSQL {
                LogSettings.current.trace("\(sql)", metadata: ["ms": "\(Double(nanoseconds) / 1_000_000)"])
            }
            observers.notify(sql)
        }
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
