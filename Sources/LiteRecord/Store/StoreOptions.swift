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
}

/// What a stack does when the store does not match the model and no migration
/// applies.
public enum ModelMismatchPolicy: Sendable, Equatable {
    /// Throw `.modelMismatch` and leave the store untouched (the default).
    case fail
    /// Rename the old file (and its `-journal`/`-wal`/`-shm`) with a
    /// timestamp suffix and start with an empty store. Nothing is ever
    /// deleted, and the renamed files are not changed. Only when no other
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
