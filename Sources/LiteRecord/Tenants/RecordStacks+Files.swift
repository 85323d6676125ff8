import Dispatch
public import Foundation

extension RecordStacks {
    /// The file names in the folder.
    func fileNames() throws(LiteRecordError) -> [String] {
        try Self.fileNames(in: directory)
    }

    static func fileNames(in directory: URL) throws(LiteRecordError) -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw LiteRecordError(
                .storeUnavailable, "cannot read the tenants folder \(directory.path): \(error.localizedDescription)")
        }
    }

    /// The tenant's name as its file is spelled, or `nil` when it has no store.
    func existingName(of tenant: TenantName) throws(LiteRecordError) -> String? {
        try Self.existingName(of: tenant, in: directory)
    }

    static func existingName(of tenant: TenantName, in directory: URL) throws(LiteRecordError) -> String? {
        if FileManager.default.fileExists(atPath: url(of: tenant.name, in: directory).path) { return tenant.name }
        return try fileNames(in: directory).lazy.compactMap(TenantName.fromFileName).first { $0.key == tenant.key }?.name
    }

    func url(of name: String) -> URL {
        Self.url(of: name, in: directory)
    }

    static func url(of name: String, in directory: URL) -> URL {
        directory.appendingPathComponent(name + TenantName.fileExtension, isDirectory: false)
    }

    func unknownTenant(_ tenant: TenantName) -> LiteRecordError {
        Self.unknownTenant(tenant, in: directory)
    }

    static func unknownTenant(_ tenant: TenantName, in directory: URL) -> LiteRecordError {
        LiteRecordError(
            .storeUnavailable,
            "there is no tenant '\(tenant.name)' in \(directory.path): RecordStacks.create(_:) makes one")
    }

    /// The store file of the tenant `name` in the tenants folder
    /// `directory`, for tools that read it without opening the tenants
    /// (`literecord inspect --tenant`, a backup script). The name is checked
    /// as everywhere else, and found in any letter case.
    ///
    /// ```swift
    /// let url = try RecordStacks.storeURL(ofTenant: "acme", in: tenantsFolder)
    /// let report = try StoreInspection(storeAt: url)
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.validationFailed` for an
    ///   invalid name, `.storeUnavailable` when the tenant has no store there
    ///   or the folder cannot be read.
    public static func storeURL(ofTenant name: String, in directory: URL) throws -> URL {
        let tenant = try TenantName(name)
        let folder = directory.standardizedFileURL
        guard let existing = try existingName(of: tenant, in: folder) else { throw unknownTenant(tenant, in: folder) }
        return url(of: existing, in: folder)
    }

    /// Opens (creating or migrating) the store of the tenant whose file is
    /// spelled `name`; an error names the tenant.
    func openStack(_ name: String) throws(LiteRecordError) -> RecordStack {
        do {
            let store = try Store(
                location: .file(url(of: name)), model: model,
                options: StoreOpenOptions(
                    migration: .automatic, onMismatch: .fail, checkpoints: .automatic,
                    memoryMappedReadSize: RecordStack.memoryMappedReadSize))
            return RecordStack(store: store)
        } catch {
            throw error.withMessage("tenant '\(name)': \(error.message)")
        }
    }

    /// Closes `stack`, logging a failed final checkpoint (the saved changes
    /// stay in its `-wal`, which the next open reads).
    func closeLogging(_ stack: RecordStack) {
        do {
            try stack.close()
        } catch {
            LogSettings.current.warning(
                "closing a tenant's stack failed", metadata: ["store": "\(stack.displayName)", "error": "\(error)"])
        }
    }

    /// Every file of the tenant whose file is spelled `name`: its `-wal`,
    /// `-shm` and `-journal` first (a `-wal` left without its store would be
    /// read into a new store of the same name), the pre-migration copies,
    /// and the store last.
    func files(of name: String) throws(LiteRecordError) -> [URL] {
        let store = url(of: name)
        let sidecars = ["-wal", "-shm", "-journal"].map { URL(fileURLWithPath: store.path + $0) }
        let copyPrefix = store.lastPathComponent + PreMigrationCopies.marker
        let copies = try fileNames().filter { file in
            // Another tenant's store may start with the prefix too
            // ("acme.sqlite.pre-migration-x.sqlite"): copies never end in .sqlite.
            var base = Substring(file)
            for suffix in ["-wal", "-shm", "-journal"] where base.hasSuffix(suffix) { base = base.dropLast(suffix.count) }
            return file.hasPrefix(copyPrefix) && !base.hasSuffix(TenantName.fileExtension)
        }
        return sidecars + copies.map { directory.appendingPathComponent($0, isDirectory: false) } + [store]
    }

    /// Removes the files that exist among `urls`, in order, then syncs the
    /// folder so that the removals survive a power loss. Through
    /// ``FileOperations``, as the library's other removals, so that the fault
    /// suite can crash between them.
    func remove(_ urls: [URL]) throws(LiteRecordError) {
        var removed = false
        for url in urls where FileManager.default.fileExists(atPath: url.path) {
            do {
                try FileOperations.current.unlink(url.path)
                removed = true
            } catch {
                throw LiteRecordError(.storeUnavailable, "cannot remove \(url.path): \(error.reason)")
            }
        }
        guard removed else { return }
        do {
            try FileOperations.current.sync(directory.path)
        } catch {
            throw LiteRecordError(.storeUnavailable, "cannot sync the tenants folder \(directory.path) after removing files: \(error.reason)")
        }
    }

    /// Runs blocking work (opening, migrating, closing, copying a store) on a
    /// dispatch thread rather than one of the cooperative pool's few.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
