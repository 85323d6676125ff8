/// What a stack does when the store was written by an older model.
///
/// ```swift
/// let stack = try RecordStack(storeAt: url, entities: [Note.self], migration: .automatic)
/// ```
public enum MigrationMode: Sendable {
    /// Never migrate: a store written by another model throws `.modelMismatch`.
    case none
    /// Apply the lightweight migration inferred from the two models.
    case automatic
    /// Apply the inferred migration plus the plan's custom steps.
    case plan(MigrationPlan)

    /// Whether this is ``plan(_:)``.
    var isPlan: Bool {
        if case .plan = self { true } else { false }
    }
}

/// What a stack does when the store does not match the model and no migration
/// applies.
public enum ModelMismatchPolicy: Sendable, Equatable {
    /// Throw `.modelMismatch` and leave the store untouched (the default).
    case fail
    /// Rename the old file (and its `-journal`/`-wal`/`-shm`) with a
    /// timestamp suffix and start with an empty store. Nothing is ever
    /// deleted; the WAL is checkpointed into the main file just before the
    /// rename (whatever the ``CheckpointPolicy``), so that the renamed main
    /// file alone holds every committed change. Only when no other
    /// connection has the store open: while another stack (of this process
    /// or another) has it open, the setup throws `.storeUnavailable` and
    /// nothing is moved, since that stack would go on writing to the renamed
    /// file.
    ///
    /// ```swift
    /// let stack = try RecordStack(storeAt: url, entities: [Note.self], onModelMismatch: .moveAsideAndRecreate)
    /// print(stack.movedAsideFiles)
    /// ```
    case moveAsideAndRecreate
}

/// Who copies a file store's write-ahead log (`-wal`) back into its main file
/// (a checkpoint).
///
/// ```swift
/// // Litestream replicates this store: let it decide when to checkpoint.
/// let stack = try RecordStack(
///     storeAt: url, entities: [Note.self], migration: .none, onModelMismatch: .fail,
///     checkpoints: .leftToReplicator)
/// ```
public enum CheckpointPolicy: Sendable, Equatable {
    /// LiteRecord checkpoints, as SQLite does by default: a commit that leaves
    /// the WAL longer than 1000 pages checkpoints it, and ``RecordStack/close()``
    /// checkpoints what is left.
    case automatic
    /// LiteRecord never checkpoints: no automatic checkpoints after commits
    /// (`PRAGMA wal_autocheckpoint = 0`), none when the stack closes, none when
    /// its last connection closes. For a store that a replicator such as
    /// Litestream follows: it copies each WAL frame before it checkpoints, so
    /// under heavy writes no frame is checkpointed away before it is copied.
    ///
    /// Something must then checkpoint, or the `-wal` file grows without
    /// bound: run the replicator whenever the app runs (Litestream checkpoints
    /// from 1000 pages on, and at least once a minute).
    case leftToReplicator
}

/// How a ``Store`` is opened: what the stack asked for, gathered in one value
/// so that the store reads no setting of the facade's.
struct StoreOpenOptions {
    var migration: MigrationMode = .none
    var onMismatch: ModelMismatchPolicy = .fail
    /// Opens the file read-only (`RecordStack(readingStoreAt:)`, replicas).
    var readOnly = false
    var checkpoints: CheckpointPolicy = .automatic
    /// Litestream's VFS, for a replica.
    var litestream: LitestreamExports?
    /// For a replica: how long the first open waits for a snapshot.
    var snapshotTimeout: Duration = .seconds(10)
    var history: HistoryOptions = .asStored
    /// The reader connections' `mmap_size` (0: off), from
    /// ``RecordStack/memoryMappedReadSize`` when the stack was made.
    var memoryMappedReadSize = 0
}
