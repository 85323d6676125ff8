import Foundation

extension Store {
    /// How to open `path` so that reading it changes nothing beside it.
    ///
    /// A WAL store that some connection has open has its `-wal` and `-shm`
    /// files; a plain read-only connection joins them and sees what that
    /// connection commits. When neither exists (nor a rollback `-journal`),
    /// nothing has the store open and its main file is the whole database: it
    /// is opened `immutable`, which creates no `-wal`/`-shm` and works on
    /// read-only media (a plain read-only connection would create both
    /// beside the store, and could not remove them when it closes). The
    /// price (https://sqlite.org/uri.html#uriimmutable): SQLite takes no
    /// lock on an immutable file, so a writer that opens the store later is
    /// not seen, and its checkpoints change pages under the reader. A backup
    /// checks the file before and after copying and refuses a changed one
    /// (``Connection/immutableFileChange()``); reads are documented as
    /// needing no writer to appear (Docs/GettingStarted.md).
    static func readingOptions(for path: String) -> Connection.OpenOptions {
        let fileManager = FileManager.default
        let companions = ["-wal", "-shm", "-journal"].contains { fileManager.fileExists(atPath: path + $0) }
        return Connection.OpenOptions(readOnly: true, create: false, immutable: !companions)
    }

    /// Why `path` cannot be read as a store, or `nil` when it is a file.
    static func missingFileError(_ path: String) -> LiteRecordError? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            return LiteRecordError(.storeUnavailable, "there is no store at \(path)")
        }
        if isFolder.boolValue {
            return LiteRecordError(.storeUnavailable, "\(path) is a folder, not a store file")
        }
        return nil
    }

    /// Opens the store for reading only: no folder or file is created, no
    /// pragma that writes runs, no migration; a store written by another
    /// model is refused.
    func openReadOnly() throws(LiteRecordError) -> Connection {
        guard let url else {
            throw LiteRecordError(.storeUnavailable, "an in-memory store cannot be opened read-only")
        }
        if let error = Self.missingFileError(url.path) { throw error }
        let connection = try openConnection(Self.readingOptions(for: url.path))
        do {
            try attributingErrors("opening the store at \(displayName) read-only") {
                try connection.execute("PRAGMA query_only = ON")
                try requireStoredModel(
                    on: connection,
                    cannotMigrate: "A read-only stack cannot migrate it; open it with migration: .automatic first")
            }
        } catch {
            connection.close()
            throw error
        }
        return connection
    }

    /// Refuses a store whose stored model is not this store's `model`: one
    /// that is empty, that LiteRecord did not create, that another model
    /// wrote (`cannotMigrate` says why this open does not migrate it), or
    /// that lacks row versions.
    func requireStoredModel(on connection: Connection, cannotMigrate: String) throws {
        switch try connection.storedModel() {
        case .empty:
            throw LiteRecordError(.storeUnavailable, "\(displayName) is empty: there is no store to read")
        case .foreign(let tables):
            throw LiteRecordError(
                .modelMismatch,
                "\(displayName) is a SQLite database that LiteRecord did not create (tables: \(tables.joined(separator: ", ")))")
        case .model(let fingerprint, let schema):
            try connection.requireKnownStoreFormat(displayName)
            guard schema.isUnchanged(becoming: model.schema, fingerprint: fingerprint) else {
                let changes = schema.changes(to: model.schema)
                let summary = changes.isEmpty ? "the model fingerprints differ" : changes.summary
                throw LiteRecordError(
                    .modelMismatch,
                    "\(displayName) was written by a different model:\n\(summary)\n\(cannotMigrate)")
            }
            guard try connection.storeFormat() >= StoreFormat.rowVersions else {
                throw LiteRecordError(
                    .modelMismatch,
                    "\(displayName) was written by an earlier LiteRecord and lacks row versions; open it once with a writable stack (any setup adds them), then again")
            }
        }
    }
}
