public import Foundation

/// Many stores, one per account or tenant, in one folder: each tenant is the
/// store file `<directory>/<name>.sqlite`, opened when first used and closed
/// when it has been idle longest and another tenant needs the room.
///
/// ```swift
/// let tenants = try RecordStacks(directory: tenantsFolder, entities: [Note.self], maxOpen: 64)
/// try tenants.create("acme")
/// try await tenants.withStack(for: "acme") { stack in
///     try await stack.write { context in Note.create(in: context).title = "Hello" }
/// }
/// tenants.close()
/// ```
///
/// - **Names**: 1–64 characters of `A–Z a–z 0–9 . _ -`, not starting with
///   `.`. Names that differ only in letter case are one tenant (a
///   case-insensitive volume would make them one file); the file keeps the
///   spelling given to ``create(_:)``. Any other name is refused with
///   `.validationFailed` before a file is touched.
/// - **Existence**: only ``create(_:)`` makes a store; using a tenant that
///   does not exist throws `.storeUnavailable`, so a typo creates nothing.
/// - **Migration**: a tenant's store migrates when it is opened, as
///   `RecordStack.setupAutoMigrating` does. A refused migration fails that
///   tenant alone, with its name in the message; the others keep working.
/// - **The cap**: at most `maxOpen` stacks are open (or opening) at once.
///   Past it, opening a tenant first closes the least recently used stack
///   that no closure holds (its writes finish first). When every open stack
///   is held, the new tenant's task waits — suspended, holding no thread —
///   until a closure returns; the cap is never exceeded. That wait has no
///   time limit (cancelling the task ends it with `CancellationError`):
///   keep `maxOpen` above the number of tenants used at once.
/// - **Replication**: the folder holds only the tenants' files (and their
///   `-wal`, `-shm` and pre-migration copies), so one Litestream `dir:` +
///   `pattern: "*.sqlite"` entry replicates every tenant, new ones included
///   (`Docs/Deployment.md`).
///
/// It is `Sendable`: share one instance among all tasks.
public final class RecordStacks: Sendable {
    /// The folder holding the tenants' stores.
    public let directory: URL
    /// The most stacks open at once.
    public let maxOpen: Int
    let model: Model
    let table = Locked(TenantTable())

    /// Opens the tenants folder at `directory`, creating it when missing.
    ///
    /// ```swift
    /// let tenants = try RecordStacks(directory: url, entities: [Note.self], maxOpen: 64)
    /// ```
    ///
    /// - Parameters:
    ///   - directory: the folder of the tenants' stores.
    ///   - entities: the entity types of every tenant's model.
    ///   - maxOpen: the most stacks open at once (at least 1); see the cap
    ///     in ``RecordStacks``.
    /// - Throws: ``LiteRecordError`` of kind `.invalidModel` for a bad entity
    ///   list, `.validationFailed` when `maxOpen` is below 1, and
    ///   `.storeUnavailable` when the folder cannot be created.
    public init(directory: URL, entities: [any Entity.Type], maxOpen: Int = 64) throws {
        guard maxOpen >= 1 else {
            throw LiteRecordError(.validationFailed, "RecordStacks needs maxOpen of at least 1, not \(maxOpen)")
        }
        model = try Model(entities: entities)
        self.directory = directory.standardizedFileURL
        self.maxOpen = maxOpen
        do {
            try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        } catch {
            throw LiteRecordError(
                .storeUnavailable,
                "cannot create the tenants folder \(self.directory.path): \(error.localizedDescription)")
        }
    }

    /// The tenants, read from the folder: every `<name>.sqlite` whose name
    /// is a valid tenant name, sorted.
    ///
    /// ```swift
    /// for name in try tenants.names() { print(name) }
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.storeUnavailable` when the
    ///   folder cannot be read.
    public func names() throws -> [String] {
        try fileNames().compactMap { TenantName.fromFileName($0)?.name }.sorted()
    }

    /// Whether the tenant `name` has a store in the folder (in any letter
    /// case): what a service asks before serving a tenant named by a
    /// request, to answer "not found" rather than fail.
    ///
    /// ```swift
    /// guard try tenants.exists("acme") else { throw HTTPError(.notFound) }
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.validationFailed` for an
    ///   invalid name (nothing is touched), `.storeUnavailable` when the
    ///   folder cannot be read.
    public func exists(_ name: String) throws -> Bool {
        try existingName(of: try TenantName(name)) != nil
    }

    /// Creates the new, empty store of the tenant `name`, with the current
    /// model. It is not kept open.
    ///
    /// ```swift
    /// try tenants.create("acme")
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.validationFailed` for an
    ///   invalid name (nothing is touched), `.storeUnavailable` when the
    ///   tenant already exists (in any letter case) or is being created or
    ///   deleted, or the store cannot be created.
    public func create(_ name: String) throws {
        let tenant = try TenantName(name)
        try reserve(tenant, deleting: false)
        defer { endReservation(of: tenant, deleting: false) }
        if let existing = try existingName(of: tenant) {
            throw LiteRecordError(.storeUnavailable, "the tenant '\(existing)' already exists in \(directory.path)")
        }
        // A -wal without its store (a deletion cut short) would be read into
        // the new store: what is left of a tenant that has no store goes.
        try remove(try files(of: tenant.name).dropLast())
        let stack = try openStack(tenant.name)
        try stack.close()
    }

    /// Closes every stack, once every closure holding one has returned.
    /// Afterwards every call throws `.storeUnavailable`.
    ///
    /// ```swift
    /// tenants.close()
    /// ```
    ///
    /// It blocks the calling thread while it waits, as `RecordStack.close()`
    /// does: call it when shutting down, outside the tenants' closures.
    /// Called inside a ``withStack(for:isolation:_:)`` closure it does not wait (it
    /// would wait for itself): the stacks still held close when their
    /// closures return. A failed final checkpoint is logged; every saved
    /// change stays in that store's `-wal`.
    public func close() {
        let semaphore = DispatchSemaphore(value: 0)
        let (idle, waiters, mustWait) = table.withLock { table in
            table.closed = true
            table.changed()
            let idle = table.slots.filter { $0.value.users == 0 && $0.value.stack != nil }
            for key in idle.keys { table.slots.removeValue(forKey: key) }
            let mustWait = !table.slots.isEmpty
            if mustWait { table.drained.append(semaphore) }
            return (idle.values.compactMap(\.stack), table.takeWaiters(), mustWait)
        }
        waiters.forEach { $0.resume() }
        idle.forEach(closeLogging)
        guard mustWait, !Self.holdsAny(of: self) else { return }
        semaphore.wait()
    }

    static func closedError() -> LiteRecordError {
        LiteRecordError(.storeUnavailable, "the tenants' stacks were closed (RecordStacks.close())")
    }
}
