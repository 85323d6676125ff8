extension RecordStack {
    /// Copies the write-ahead log (`-wal`) back into the store's main file
    /// now: a checkpoint, as SQLite names it
    /// (https://sqlite.org/c3ref/wal_checkpoint_v2.html).
    ///
    /// LiteRecord checkpoints on its own (``CheckpointPolicy/automatic``), so
    /// most apps never call this. Call it before copying the store's files
    /// by hand, at a quiet moment after a large import, or from the process
    /// that owns checkpoints of a store opened with
    /// ``CheckpointPolicy/leftToReplicator`` elsewhere.
    ///
    /// ```swift
    /// let result = try stack.checkpoint(.truncate)
    /// if !result.isComplete { print("readers kept \(result.walFrames - result.checkpointedFrames) frames") }
    /// ```
    ///
    /// An in-memory stack has no log: it returns a complete result at once.
    ///
    /// - Parameter mode: how hard to try; see ``CheckpointMode``.
    /// - Returns: how many frames the log held and how many were copied.
    /// - Throws: ``LiteRecordError`` of kind `.readOnlyStore` for a read-only
    ///   stack, `.storeUnavailable` when the stack is closed, when called inside
    ///   a `write` of this stack, or when SQLite fails (an I/O error).
    public func checkpoint(_ mode: CheckpointMode = .passive) throws -> CheckpointResult {
        try store.checkpoint(mode)
    }
}
