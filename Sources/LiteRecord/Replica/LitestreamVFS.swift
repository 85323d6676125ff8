import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Litestream's VFS (`litestream-vfs.so`) in this process: what reads a
/// replica in place (https://litestream.io/guides/vfs/).
///
/// The extension registers one VFS named `litestream` when it first loads,
/// and each connection opened through it names its own replica with the
/// `replica_url` parameter of its URI (``uriParameters(replica:pollInterval:)``),
/// so one process reads any number of replicas and nothing of the process's
/// environment is read or written for it. The library loads once per
/// process: the first extension loaded serves every later replica.
enum LitestreamVFS {
    /// The VFS name the extension registers (kept beside its exports, in the
    /// SQLite layer, which checks a connection's VFS by it).
    static let name = LitestreamExports.vfsName
    /// The environment variable naming the extension when the caller does not.
    static let extensionVariable = "LITERECORD_LITESTREAM_VFS"
    /// The extension's entry point (`sqlite3_<name>_init`).
    static let entryPoint = "sqlite3_litestreamvfs_init"

    /// The loaded extension: its path and exports, once it loaded.
    private static let loaded = Locked<(path: String, exports: LitestreamExports)?>(nil)

    static let installAdvice =
        "it comes with PyPI's litestream-vfs wheel (`pip install litestream-vfs==0.5.17`; `python3 -c 'import litestream_vfs; print(litestream_vfs.loadable_path())'` prints its path), and in the LiteRecord repository `make litestream` installs it under .build-tools/litestream"

    /// Loads the extension unless this process loaded it already.
    ///
    /// - Throws: `.storeUnavailable` when the extension is missing or cannot load.
    /// - Returns: the extension's per-connection exports.
    static func prepare(extensionURL: URL?) throws(LiteRecordError) -> LitestreamExports {
        let path = try extensionPath(extensionURL)
        return try loaded.withLock { (loaded: inout (path: String, exports: LitestreamExports)?) throws(LiteRecordError) in
            if let loaded { return loaded.exports }
            let exports = try load(path)
            loaded = (path, exports)
            return exports
        }
    }

    /// The storage Litestream 0.5.17's VFS reads.
    static let knownSchemes: Set = ["file", "s3", "gs", "abs", "oss", "sftp", "nats", "webdav"]

    /// `replica` as one spelling, refused when Litestream reads no such
    /// storage. A `file` replica is its folder's canonical path
    /// (`file:/x`, `file:///x/` and a symlink to `/x` are one replica);
    /// other storage loses trailing slashes only.
    static func location(_ replica: URL) throws(LiteRecordError) -> URL {
        guard let scheme = replica.scheme?.lowercased(), knownSchemes.contains(scheme) else {
            throw LiteRecordError(
                .storeUnavailable,
                "\(replica.absoluteString) is not a replica location Litestream reads: give file:///…, s3://…, gs://…, abs://…, oss://…, sftp://…, nats://… or webdav://…")
        }
        if scheme == "file" {
            return URL(fileURLWithPath: replica.path, isDirectory: true).resolvingSymlinksInPath().standardizedFileURL
        }
        var text = replica.absoluteString
        while text.hasSuffix("/") && !text.hasSuffix("://") { text.removeLast() }
        return URL(string: text) ?? replica
    }

    /// How a `file` location is named to the VFS and in messages: `file:///x`.
    static func spelling(_ location: URL) -> String {
        guard location.isFileURL else { return location.absoluteString }
        var path = location.path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return "file://" + path
    }

    /// The URI parameters that open a connection on `replica` through the
    /// VFS: its location, and how often the VFS polls it for new commits
    /// (`nil`: the VFS's default, 1 s).
    static func uriParameters(replica: URL, pollInterval: String?) -> [(name: String, value: String)] {
        var parameters = [(name: "replica_url", value: spelling(replica))]
        if let pollInterval { parameters.append((name: "poll_interval", value: pollInterval)) }
        return parameters
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
                "reading a replica needs Litestream's VFS extension (litestream-vfs.so), and none was named: pass vfsExtension: (literecord: --vfs-extension) or set \(extensionVariable) to its path; \(installAdvice)"
            )
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: named.path, isDirectory: &isFolder), !isFolder.boolValue else {
            throw LiteRecordError(
                .storeUnavailable,
                "Litestream's VFS extension is not at \(named.path) (named by \(named.by)); \(installAdvice)")
        }
        return named.path
    }

    private static func load(_ path: String) throws(LiteRecordError) -> LitestreamExports {
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
            exports = try LitestreamExports(library: path)
        } catch {
            throw LiteRecordError(.storeUnavailable, "loading Litestream's VFS extension from \(path) failed: \(error)")
        }
        guard Connection.isVFSRegistered(name) else {
            throw LiteRecordError(
                .storeUnavailable, "\(path) loaded but registered no VFS named \"\(name)\": it is not Litestream's VFS extension")
        }
        return exports
        #else
        throw LiteRecordError(
            .storeUnavailable,
            "reading a replica loads Litestream's VFS extension into SQLite, which LiteRecord supports on Linux with glibc only (the system SQLite of Apple platforms loads no extensions)"
        )
        #endif
    }
}
