internal import CSQLite
import Foundation

extension Connection {
    /// Loads the SQLite extension at `path` into this connection through its
    /// entry point `entryPoint` (https://sqlite.org/c3ref/load_extension.html).
    ///
    /// Only the C function is enabled, and only for this call: SQL's
    /// `load_extension()` stays off (`SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION`).
    /// An extension that registers a VFS or an automatic extension stays
    /// loaded for the process when this connection closes.
    ///
    /// - Throws: ``SQLiteError`` with SQLite's (or the extension's) message.
    func loadExtension(at path: String, entryPoint: String) throws {
        #if os(Linux)
        let db = try openHandle(sql: nil)
        var enabled: Int32 = 0
        var result = literecord_db_config_int(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, &enabled)
        guard result == SQLITE_OK else { throw SQLiteError(resultCode: result, db: db) }
        defer { _ = literecord_db_config_int(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, &enabled) }
        var message: UnsafeMutablePointer<CChar>?
        result = sqlite3_load_extension(db, path, entryPoint, &message)
        if result != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
            sqlite3_free(message)
            throw SQLiteError(extendedCode: result, message: text)
        }
        #else
        throw SQLiteError(extendedCode: SQLITE_ERROR, message: "loading extensions is supported on Linux only")
        #endif
    }

    /// Whether SQLite knows a VFS named `name` in this process.
    static func isVFSRegistered(_ name: String) -> Bool {
        sqlite3_vfs_find(name) != nil
    }
}
