import Foundation

extension Store {
    /// Whether the store is open.
    var isOpen: Bool {
        gate.withState { $0.connection != nil }
    }

    /// Whether the store is closed or closing: its reader pool refuses
    /// readers from the start of ``close()``, before the writer closes, so a
    /// read refused then is part of closing, not a failure.
    var isClosingOrClosed: Bool {
        readers?.isClosing == true || !isOpen
    }

    /// How long ``close()`` waits for reads in flight before it closes the
    /// store without them.
    static let readDrainTimeout: Duration = .seconds(10)

    /// Closes the connections once the work already under way finishes:
    /// every `write` made before the call (running or queued behind the
    /// running one: Docs/Internals/Invariants.md, "Closing finishes what was
    /// queued"), every read and
    /// backup in flight (up to ``readDrainTimeout``), and any other use of
    /// the writer. Writes, reads and backups begun after the call are
    /// refused. Closing the last connection checkpoints the WAL into the
    /// main file.
    ///
    /// A read or backup still running after the bound finishes on its own; its
    /// connection then closes without deleting `-wal` or `-shm` by name, so
    /// it cannot delete the files of a store put in this one's place
    /// meanwhile (a restore).
    ///
    /// - Throws: `.storeUnavailable` when called from inside a write on this
    ///   store (see ``refuseCloseInsideWrite()``; nothing is closed), or when
    ///   the final checkpoint failed (a full disk, an I/O error). The store is
    ///   closed all the same then, and every saved change is safe in the
    ///   `-wal` file: the next open reads it from there and checkpoints it.
    func close() throws(LiteRecordError) {
        try refuseCloseInsideWrite()
        // Not under the writer lock: a queued write needs it, and so does a
        // read that saves.
        queuedWrites.drain()
        if let readers, !readers.close(waitingUpTo: Self.readDrainTimeout) {
            logger.warning(
                "closing the store while reads still run", metadata: ["store": "\(displayName)", "waited": "\(Self.readDrainTimeout)"])
        }
        let failure = gate.withState { state in
            var failure: LiteRecordError?
            if let connection = state.connection, url != nil, !isReadOnly, checkpoints == .automatic {
                failure = finalCheckpoint(connection)
            }
            state.connection?.close()
            state.connection = nil
            state.replica.needsFreshConnection = false
            replicaWatcher?.close()
            changes.finish()
            observations.finish()
            return failure
        }
        if let failure { throw failure }
    }

    /// Throws when the calling thread is inside a write on this store. Closing
    /// there would close the connection under the write's own transaction
    /// (SQLite cannot checkpoint a file its own connection is writing, and
    /// the write would be rolled back), and waiting for the write instead
    /// would wait for itself.
    func refuseCloseInsideWrite() throws(LiteRecordError) {
        try refuseInsideWrite("close()")
    }

    /// Throws when the calling thread is inside a write on this store, where
    /// `call` would wait for the write it is part of.
    func refuseInsideWrite(_ call: String) throws(LiteRecordError) {
        guard isWriterHeldByCurrentThread else { return }
        if call != "close()" {
            throw LiteRecordError(
                .storeUnavailable,
                "\(call) was called inside a write on \(displayName) (a write {} closure, or code that a save runs) and was refused: it cannot run while its own write transaction is open. Call it after write returns"
            )
        }
        throw LiteRecordError(
            .storeUnavailable,
            "close() was called inside a write on \(displayName) (a write {} closure, or code that a save runs) and was refused: the write cannot finish while its own code waits for it to finish. Nothing was closed and the write goes on; call close() after write returns"
        )
    }

    /// Copies the WAL into the main file before the last connection closes.
    /// `sqlite3_close` does the same but cannot report a failure, so the
    /// checkpoint runs here first, where its error is seen; PASSIVE never waits
    /// for another process's readers (https://sqlite.org/c3ref/wal_checkpoint_v2.html).
    private func finalCheckpoint(_ connection: Connection) -> LiteRecordError? {
        do {
            try connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
            return nil
        } catch {
            let cause = (error as? SQLiteError)?.message ?? "\(error)"
            return LiteRecordError(
                .storeUnavailable,
                "closing the store at \(displayName): the final checkpoint failed (\(cause)); every saved change is safe in \(displayName)-wal and is read from there and checkpointed when the store is next opened",
                sqlite: error as? SQLiteError)
        }
    }

    // MARK: Checkpoints

    /// Runs a checkpoint of `mode` on the writer connection, between writes.
    ///
    /// - Throws: `.readOnlyStore` for a read-only store, `.storeUnavailable`
    ///   when closed, inside a write on this store, or when SQLite fails.
    func checkpoint(_ mode: CheckpointMode) throws(LiteRecordError) -> CheckpointResult {
        if isReadOnly { throw refusedWrite("checkpointing \(displayName)") }
        try refuseInsideWrite("checkpoint()")
        guard url != nil else { return CheckpointResult(isComplete: true, walFrames: 0, checkpointedFrames: 0) }
        return try withConnection("checkpointing \(displayName)") { connection in
            let row = try connection.rows("PRAGMA wal_checkpoint(\(mode.sqlName))").first ?? []
            func number(_ index: Int) -> Int {
                if index < row.count, case .integer(let value) = row[index] { Int(value) } else { 0 }
            }
            return CheckpointResult(isComplete: number(0) == 0 && number(2) >= number(1), walFrames: max(number(1), 0), checkpointedFrames: max(number(2), 0))
        }
    }

    /// How many commits go between two looks at the `-wal` file's size.
    static let walCheckInterval = 16

    /// Keeps the WAL of an automatically checkpointed store near
    /// ``walSizeLimit`` without ever making a save wait for a reader, or copy
    /// a large backlog. SQLite's automatic checkpoint (`PASSIVE`, every 1000
    /// pages) copies frames back but can only start the log over when no
    /// reader uses it. Past the limit:
    ///
    /// - the writer's automatic checkpoint pauses, and ``WALCatchUp`` copies
    ///   the backlog on a connection of its own, beside the saves;
    /// - once it is nearly caught up, a `RESTART` checkpoint runs here with no
    ///   busy handler (``Connection/withoutWaiting(_:)``): it copies the last
    ///   frames and starts the log over only if no reader uses it at that
    ///   instant, else gives up at once, and the next commit tries again.
    ///
    /// A reader holding an old snapshot (a long read, a backup, another
    /// process) only keeps the file growing while it holds it; the `RESTART`
    /// this used to run waited for it under the store's lock, up to the busy
    /// timeout, and every save waited behind it (`WALBoundTests`). Once a
    /// copy is complete, readers that begin read the main file only
    /// (https://sqlite.org/wal.html#avoiding_excessively_large_wal_files), so
    /// short overlapping reads let a later attempt, or the next commit, start
    /// the log over; `journal_size_limit` then cuts the file back. Called
    /// holding the writer gate after an outermost commit.
    func boundWAL(_ connection: Connection) {
        assert(isWriterHeldByCurrentThread, "the WAL is bounded without holding the writer gate")
        guard checkpoints == .automatic, let url else { return }
        writer.commitsSinceWALCheck += 1
        guard writer.commitsSinceWALCheck >= Self.walCheckInterval else { return }
        writer.commitsSinceWALCheck = 0
        var info = stat()
        guard stat(url.path + "-wal", &info) == 0, Int(info.st_size) > Self.walSizeLimit else {
            pauseWriterCheckpoints(false, connection)
            return
        }
        // Past the bound: look again after the next commit until it is back.
        writer.commitsSinceWALCheck = Self.walCheckInterval - 1
        pauseWriterCheckpoints(true, connection)
        if let readers {
            walCatchUp.request(
                open: { try? readers.acquireOwn("checkpointing") }, release: { readers.release($0) })
        }
        guard walCatchUp.isNearlyCaughtUp else { return }
        do {
            _ = try connection.withoutWaiting { try connection.rows("PRAGMA wal_checkpoint(RESTART)") }
        } catch {
            logger.warning("bounding the WAL failed", metadata: ["store": "\(displayName)", "error": "\(error)"])
        }
    }

    /// Turns the writer's automatic checkpoint off while the WAL is past its
    /// bound (``WALCatchUp`` copies then), and back on after.
    private func pauseWriterCheckpoints(_ pause: Bool, _ connection: Connection) {
        guard pause != writer.writerCheckpointsPaused else { return }
        do {
            try connection.execute("PRAGMA wal_autocheckpoint = \(pause ? 0 : 1000)")
            writer.writerCheckpointsPaused = pause
        } catch {
            logger.warning("setting the automatic checkpoint failed", metadata: ["store": "\(displayName)", "error": "\(error)"])
        }
    }
}
