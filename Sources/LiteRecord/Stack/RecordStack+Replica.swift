public import Foundation

extension RecordStack {
    /// Opens a read-only stack over a Litestream replica, read in place
    /// through Litestream's VFS: no restore, no local copy
    /// (`Docs/Deployment.md`, "Read replicas").
    ///
    /// ```swift
    /// let replica = try RecordStack(
    ///     replicaAt: URL(string: "file:///srv/replicas/notes")!,   // or s3://…
    ///     entities: [Note.self],
    ///     vfsExtension: URL(fileURLWithPath: "/opt/litestream/litestream-vfs.so"))
    /// let recent = try await replica.read { context in try Note.findAll(in: context) }
    /// ```
    ///
    /// Everything that reads works as on a store: finders, predicates,
    /// prefetching, search, aggregates, ``backup(to:)``, and observation —
    /// new commits reach the replica within Litestream's poll interval (1 s)
    /// and wake observers at the next check (every 0.25 s). A read sees one
    /// whole commit of the primary, never part of one. Every write (a save,
    /// `write`, `deleteAll`, an import, a checkpoint) throws
    /// `.storeUnavailable` naming the replica.
    ///
    /// The replica is behind its primary by what Litestream has not copied
    /// yet (its sync interval, 1 s by default) plus up to one poll interval:
    /// read your own writes from the primary.
    ///
    /// Each stack names its replica to the VFS in its own connections (the
    /// VFS's `replica_url`), so a process reads any number of replicas,
    /// and several stacks of one. One location spelled differently —
    /// `file:/srv/r`, `file:///srv/r/`, or through a symlink — is one
    /// replica: a `file` location is its folder's canonical path.
    ///
    /// Litestream's VFS waits without end for a replica's first snapshot;
    /// this waits at most `snapshotTimeout`, then throws. (Over S3 and
    /// other remote storage, the open that waits cannot be stopped: it is
    /// left to finish in the background, and its connection is closed when
    /// it does.) Once open, a read that finds a file gone — Litestream's
    /// retention removes the files of an older snapshot — re-reads the
    /// replica's restore plan and runs once more; a replica whose polls
    /// keep failing says so in ``replicaPosition`` (``ReplicaPosition/staleReason``).
    ///
    /// - Parameters:
    ///   - replica: the replica's location as Litestream names it: `file:///…`
    ///     (the folder a `file` replica writes), `s3://bucket/path`, ….
    ///   - entities: the entity types of the model; the replica's stored
    ///     model must be the same.
    ///   - vfsExtension: the path of `litestream-vfs.so` (PyPI's
    ///     `litestream-vfs` wheel has it); `nil` reads it from
    ///     `$LITERECORD_LITESTREAM_VFS`. The disk is never searched. The
    ///     first extension a process loads serves all its replicas.
    ///   - snapshotTimeout: how long to wait for the replica's first
    ///     snapshot (10 s by default).
    /// - Throws: ``LiteRecordError`` of kind `.storeUnavailable` (no extension
    ///   named, none at the path, not Linux, a location Litestream does not
    ///   read, no snapshot within `snapshotTimeout`) or `.modelMismatch` (the
    ///   replica's model differs; a replica is never migrated).
    public convenience init(
        replicaAt replica: URL, entities: [any Entity.Type], vfsExtension: URL? = nil, snapshotTimeout: Duration = .seconds(10)
    ) throws {
        let model = try Model(entities: entities)
        let location = try LitestreamVFS.location(replica)
        let exports = try LitestreamVFS.prepare(extensionURL: vfsExtension)
        let store = try Store(
            location: .replica(location), model: model,
            options: StoreOpenOptions(readOnly: true, litestream: exports, snapshotTimeout: snapshotTimeout))
        self.init(store: store)
    }

    /// Whether this stack reads a Litestream replica
    /// (``init(replicaAt:entities:vfsExtension:snapshotTimeout:)``).
    public var isReplica: Bool { store.replicaURL != nil }

    /// Where the replica is in its primary's history: the newest commit it
    /// reads, by Litestream's transaction id and commit time. A stack that is
    /// not a replica answers txid 0 and no time.
    ///
    /// ```swift
    /// print("replica at \(replica.replicaPosition)")   // "replica at txid 42 (2026-11-26T10:00:01.250Z)"
    /// ```
    ///
    /// Waits while another read of the replica runs. When the replica cannot
    /// be asked (the stack is closed), the answer is txid 0. A replica that
    /// stopped following its primary says why in
    /// ``ReplicaPosition/staleReason``.
    public var replicaPosition: ReplicaPosition {
        (try? store.replicaPosition()) ?? ReplicaPosition(txid: 0, commitTime: nil, sinceLastPoll: nil)
    }

    /// Runs `body` with a fresh context that reads the replica as it was at
    /// `date`: the newest commit made at or before it, as Litestream recorded
    /// commit times. A `date` after the newest commit reads the newest.
    ///
    /// ```swift
    /// let tenOClock = try Date("2026-11-26T10:00:00Z", strategy: .iso8601)
    /// let then = try await replica.read(asOf: tenOClock) { context in try Note.count(in: context) }
    /// ```
    ///
    /// Use the results inside `body` or copy values out: like any `read`, the
    /// context ends with it. Point-in-time reads take the replica's one
    /// connection, so other reads of this stack wait for them; after one, the
    /// stack reads the newest commit again.
    ///
    /// How far back a replica goes is Litestream's retention (its
    /// `retention` setting, 24 hours by default).
    ///
    /// - Throws: ``LiteRecordError`` of kind `.storeUnavailable` for a stack
    ///   that is not a replica or a `date` before the replica's first
    ///   snapshot; what `body` throws.
    public func read<T: Sendable>(asOf date: Date, _ body: @Sendable (RecordContext) throws -> T) async throws -> T {
        try await withTaskExecutorPreference(StoreExecutors.reads) {
            try self.store.readAsOf(date) { connection in
                try body(RecordContext(store: self.store, role: .pinned(connection)))
            }
        }
    }
}
