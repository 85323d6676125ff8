import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Litestream's VFS (`litestream-vfs.so`) in this process: what reads a
/// replica in place (https://litestream.io/guides/vfs/).
///
/// The extension is a Go library and serves **one replica per process**: it
/// registers a VFS named `litestream` for the location in
/// `LITESTREAM_REPLICA_URL`, read once, when it first loads. Go's runtime
/// reads the environment the process *started* with (the block beside
/// `argv`), not the one `setenv` changes later, so a variable set after
/// start-up is never seen. ``prepare(replica:extensionURL:)`` therefore puts
/// the URL into that start-up block for the duration of the load (in the
/// slot of `LITESTREAM_REPLICA_URL` when the process started with one, else in
/// the slot of a variable no Go code reads, such as `OLDPWD`), then puts the
/// block back as it was. The first replica opened fixes the location for
/// the process; a stack over another location is refused with a clear error.
enum LitestreamVFS {
    /// The VFS name the extension registers.
    static let name = "litestream"
    /// The environment variable naming the extension when the caller does not.
    static let extensionVariable = "LITERECORD_LITESTREAM_VFS"
    /// The extension's entry point (`sqlite3_<name>_init`).
    static let entryPoint = "sqlite3_litestreamvfs_init"
    /// What the extension reads for the replica's location.
    static let replicaVariable = "LITESTREAM_REPLICA_URL"

    private struct State {
        /// The location the extension in this process serves, once it loaded
        /// (or its loading started: Go's runtime keeps the environment it
        /// first read, so a failed load fixes the location as well).
        var replica: String?
        var exports: LitestreamExports?
    }

    private static let state = Mutex(State())

    static let installAdvice =
        "it comes with PyPI's litestream-vfs wheel (`pip install litestream-vfs==0.5.17`; `python3 -c 'import litestream_vfs; print(litestream_vfs.loadable_path())'` prints its path), and in the LiteRecord repository `make litestream` installs it under .build-tools/litestream"

    /// Loads the extension for `replica` unless it is loaded for it already.
    ///
    /// - Throws: `.storeUnavailable` when the extension is missing or cannot
    ///   load, or when this process's VFS already serves another location.
    /// - Returns: the extension's per-connection exports.
    static func prepare(replica: URL, extensionURL: URL?) throws(LiteRecordError) -> LitestreamExports {
        let location = canonical(replica)
        let path = try extensionPath(extensionURL)
        // Before the location is fixed for the process: a wrong one must
        // not keep the right one out until the process restarts.
        guard let scheme = replica.scheme?.lowercased(), knownSchemes.contains(scheme) else {
            throw LiteRecordError(
                .storeUnavailable,
                "\(location) is not a replica location Litestream reads: give file:///…, s3://…, gs://…, abs://…, oss://…, sftp://…, nats://… or webdav://…")
        }
        return try state.withLock { (state: inout State) throws(LiteRecordError) -> LitestreamExports in
            if let served = state.replica, served != location {
                throw LiteRecordError(
                    .storeUnavailable,
                    "cannot open the replica at \(location): Litestream's VFS in this process already serves the replica at \(served), and it serves one replica per process (it reads LITESTREAM_REPLICA_URL once, when it loads); read \(location) from another process")
            }
            if let exports = state.exports { return exports }
            try Store.requireSnapshot(replica)
            state.replica = location
            let exports = try load(path, replica: location)
            state.exports = exports
            return exports
        }
    }

    /// The storage Litestream 0.5.17's VFS reads.
    static let knownSchemes: Set = ["file", "s3", "gs", "abs", "oss", "sftp", "nats", "webdav"]

    /// `replica` as one spelling: `file:///x/` and `file:///x` are one replica.
    static func canonical(_ replica: URL) -> String {
        var text = replica.absoluteString
        while text.hasSuffix("/") && !text.hasSuffix("://") { text.removeLast() }
        return text
    }

    /// The extension's path: `explicit`, or `$LITERECORD_LITESTREAM_VFS`. The
    /// disk is never searched.
    static func extensionPath(_ explicit: URL?) throws(LiteRecordError) -> String {
        let named: (path: String, by: String)
        if let explicit {
            named = (explicit.path, "vfsExtension:")
        } else if let variable = ProcessInfo.processInfo.environment[extensionVariable], !variable.isEmpty {
            named = (variable, "$\(extensionVariable)")
        } else {
            throw LiteRecordError(
                .storeUnavailable,
                "reading a replica needs Litestream's VFS extension (litestream-vfs.so), and none was named: pass vfsExtension: (literecord: --vfs-extension) or set \(extensionVariable) to its path; \(installAdvice)")
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: named.path, isDirectory: &isFolder), !isFolder.boolValue else {
            throw LiteRecordError(
                .storeUnavailable,
                "Litestream's VFS extension is not at \(named.path) (named by \(named.by)); \(installAdvice)")
        }
        return named.path
    }

    private static func load(_ path: String, replica: String) throws(LiteRecordError) -> LitestreamExports {
        #if canImport(Glibc)
        let connection: Connection
        do {
            connection = try Connection(path: nil)
        } catch {
            throw LiteRecordError.wrap(error, "loading Litestream's VFS extension from \(path)")
        }
        defer { connection.close() }
        let exports: LitestreamExports
        do {
            try StartupEnvironment.withVariable(replicaVariable, set: replica) {
                defer {
                    // Its automatic extension breaks every later open of a
                    // connection not through the VFS (LitestreamExports). The
                    // reset removes every automatic extension of the process,
                    // an app's own included, and an open on another thread
                    // between the load and here fails: documented in
                    // Docs/Deployment.md, "Read replicas".
                    Connection.resetAutomaticExtensions()
                }
                try connection.loadExtension(at: path, entryPoint: entryPoint)
            }
            exports = try LitestreamExports(library: path)
        } catch let error as LiteRecordError {
            throw error
        } catch {
            throw LiteRecordError(
                .storeUnavailable,
                "loading Litestream's VFS extension from \(path) for the replica at \(replica) failed: \(error)")
        }
        guard Connection.isVFSRegistered(name) else {
            throw LiteRecordError(
                .storeUnavailable, "\(path) loaded but registered no VFS named \"\(name)\": it is not Litestream's VFS extension")
        }
        return exports
        #else
        throw LiteRecordError(
            .storeUnavailable,
            "reading a replica loads Litestream's VFS extension into SQLite, which LiteRecord supports on Linux with glibc only (the system SQLite of Apple platforms loads no extensions)")
        #endif
    }
}

#if canImport(Glibc)
/// The environment block the process started with, as Go's runtime reads it.
enum StartupEnvironment {
    /// Variables no Go code in the extension reads, whose slot may carry
    /// another variable while the extension loads, in order of preference.
    static let spareNames = [
        "OLDPWD", "_", "SHLVL", "LS_COLORS", "LESSOPEN", "LESSCLOSE", "TERM", "COLORTERM", "TERM_PROGRAM",
        "TERM_PROGRAM_VERSION", "MOTD_SHOWN", "HOSTNAME", "PWD", "MAIL", "SHELL", "LANG",
    ]

    /// Runs `body` while the start-up environment names `value` for
    /// `variable`, then restores it.
    ///
    /// - Throws: `.storeUnavailable` when the block has neither `variable`
    ///   nor a spare slot; what `body` throws.
    static func withVariable<T>(_ variable: String, set value: String, _ body: () throws -> T) throws -> T {
        let argc = Int(CommandLine.argc)
        let block = CommandLine.unsafeArgv.advanced(by: argc + 1)
        guard let slot = self.slot(for: variable, in: block) else {
            throw LiteRecordError(
                .storeUnavailable,
                "cannot hand the replica's location to Litestream's VFS: it reads \(variable) from the environment this process started with, which has neither \(variable) nor a spare variable (such as OLDPWD); start the process with \(variable) set (to any value)")
        }
        let original = block[slot]
        guard let replacement = strdup("\(variable)=\(value)") else {
            throw LiteRecordError(.storeUnavailable, "out of memory while loading Litestream's VFS")
        }
        // `replacement` is never freed: while it sits in the block, another
        // thread's `setenv` of a new variable copies the block, pointer and
        // all, into `environ`, and that copy keeps it after the restore.
        block[slot] = replacement
        defer { block[slot] = original }
        return try body()
    }

    private static func slot(for variable: String, in block: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int? {
        var names: [String: Int] = [:]
        var index = 0
        while let entry = block[index] {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                let name = String(text[..<equals])
                if names[name] == nil { names[name] = index }
            }
            index += 1
        }
        if let own = names[variable] { return own }
        return spareNames.lazy.compactMap { names[$0] }.first
    }
}
#endif
