internal import CSQLite
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The functions Litestream's VFS extension exports for one connection
/// (its `cmd/litestream-vfs/main.go`), found in the loaded library by name.
///
/// The extension's own SQL functions (`litestream_txid()`, …) come from an
/// automatic extension it registers for every connection the process opens
/// afterwards, and that automatic extension fails every open of a connection
/// that is *not* through the VFS ("automatic extension loading failed",
/// SQLite 101: it is declared `void` where SQLite expects a result code). So
/// LiteRecord removes it right after loading the library
/// (``Connection/resetAutomaticExtensions()``) and calls these exports
/// directly instead, for its replica connections only.
struct LitestreamExports: @unchecked Sendable {
    // @unchecked: C function pointers into a library that stays loaded for
    // the life of the process; the Go side serializes what they touch.

    /// The name of the VFS the extension registers: how a connection knows
    /// it was opened through it (``LitestreamVFS/name`` is this).
    static let vfsName = "litestream"

    typealias Handle = UnsafeMutableRawPointer?
    typealias Message = UnsafeMutablePointer<CChar>?
    typealias Register = @convention(c) (Handle, UInt64) -> Message
    typealias OfHandle = @convention(c) (Handle) -> Message
    typealias WithText = @convention(c) (Handle, UnsafeMutablePointer<CChar>?) -> Message
    typealias TextOut = @convention(c) (Handle, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Message
    typealias IntegerOut = @convention(c) (Handle, UnsafeMutablePointer<Int64>?) -> Message

    let register: Register
    let unregister: OfHandle
    let setTime: WithText
    let resetTime: OfHandle
    let txid: TextOut
    let lag: IntegerOut

    /// The exports of the library at `path`, which must be loaded already.
    init(library path: String) throws {
        guard let library = dlopen(path, RTLD_NOW | RTLD_NOLOAD) else {
            throw SQLiteError(extendedCode: SQLITE_ERROR, message: "\(path) is not loaded")
        }
        func find<T>(_ name: String, as type: T.Type) throws -> T {
            guard let symbol = dlsym(library, name) else {
                throw SQLiteError(
                    extendedCode: SQLITE_ERROR,
                    message: "\(path) exports no \(name): it is not the Litestream VFS extension LiteRecord knows (0.5.17)")
            }
            // unsafe(c-symbol-type): `type` is the C signature the extension
            // declares for `name` (the types above).
            return unsafeBitCast(symbol, to: type)
        }
        register = try find("GoLitestreamRegisterConnection", as: Register.self)
        unregister = try find("GoLitestreamUnregisterConnection", as: OfHandle.self)
        setTime = try find("GoLitestreamSetTime", as: WithText.self)
        resetTime = try find("GoLitestreamResetTime", as: OfHandle.self)
        txid = try find("GoLitestreamTxid", as: TextOut.self)
        lag = try find("GoLitestreamLag", as: IntegerOut.self)
    }

    /// Throws the message an export returned, if any, and frees it.
    static func check(_ message: Message, _ operation: String) throws {
        guard let message else { return }
        let text = String(cString: message)
        free(message)
        throw SQLiteError(extendedCode: SQLITE_ERROR, message: "\(operation): \(text)")
    }
}

extension Connection {
    /// Removes every automatic extension of the process
    /// (https://sqlite.org/c3ref/reset_auto_extension.html): see
    /// ``LitestreamExports``.
    static func resetAutomaticExtensions() {
        sqlite3_reset_auto_extension()
    }

    /// Tells Litestream's VFS which of its files this connection reads, as
    /// its automatic extension would: what the per-connection exports below
    /// need. The connection must have been opened through the VFS.
    func registerWithLitestream(_ exports: LitestreamExports) throws {
        let db = try openHandle(sql: nil)
        var file: UnsafeMutablePointer<sqlite3_file>?
        let result = sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file)
        guard result == SQLITE_OK, let file else { throw SQLiteError(resultCode: result, db: db) }
        // The layout below is the VFS's only: check that it is the VFS's file.
        var vfs: UnsafeMutablePointer<sqlite3_vfs>?
        guard sqlite3_file_control(db, "main", SQLITE_FCNTL_VFS_POINTER, &vfs) == SQLITE_OK,
            let name = vfs?.pointee.zName, String(cString: name) == LitestreamExports.vfsName, file.pointee.pMethods != nil
        else {
            throw SQLiteError(extendedCode: SQLITE_MISUSE, message: "the connection is not opened through Litestream's VFS")
        }
        // The VFS's file is `struct { sqlite3_file base; sqlite3_uint64 id; }`
        // (its src/sqlite3vfs.h): the id follows the base.
        let id = UnsafeRawPointer(file).load(fromByteOffset: MemoryLayout<sqlite3_file>.stride, as: UInt64.self)
        try LitestreamExports.check(exports.register(UnsafeMutableRawPointer(db), id), "registering with Litestream's VFS")
        litestream = exports
    }

    /// Forgets this connection in Litestream's VFS; called by ``close()``.
    func unregisterFromLitestream() {
        guard let exports = litestream, let handle else { return }
        try? LitestreamExports.check(exports.unregister(UnsafeMutableRawPointer(handle)), "unregistering")
        litestream = nil
    }

    private func litestreamExports(_ operation: String) throws -> (LitestreamExports, UnsafeMutableRawPointer) {
        guard let exports = litestream else {
            throw SQLiteError(extendedCode: SQLITE_MISUSE, message: "\(operation): not a Litestream replica connection")
        }
        return (exports, UnsafeMutableRawPointer(try openHandle(sql: nil)))
    }

    private func litestreamText(_ export: KeyPath<LitestreamExports, LitestreamExports.TextOut>, _ operation: String) throws -> String {
        let (exports, db) = try litestreamExports(operation)
        var out: UnsafeMutablePointer<CChar>?
        try LitestreamExports.check(exports[keyPath: export](db, &out), operation)
        guard let out else { return "" }
        defer { free(out) }
        return String(cString: out)
    }

    /// Litestream's transaction id of what this replica connection reads
    /// (16 hexadecimal digits).
    func litestreamTXID() throws -> String { try litestreamText(\.txid, "reading the replica's txid") }

    /// Seconds since the VFS last checked the replica's storage; -1 before
    /// its first check.
    func litestreamLag() throws -> Int64 {
        let (exports, db) = try litestreamExports("reading the replica's lag")
        var out: Int64 = -1
        try LitestreamExports.check(exports.lag(db, &out), "reading the replica's lag")
        return out
    }

    /// Moves this replica connection to the state at `time` (RFC 3339), or
    /// back to the newest when `time` is `nil`. Takes effect from the next
    /// read transaction.
    func setLitestreamTime(_ time: String?) throws {
        let (exports, db) = try litestreamExports("moving the replica in time")
        guard let time else {
            try LitestreamExports.check(exports.resetTime(db), "returning the replica to its newest commit")
            return
        }
        try time.withCString { text in
            try LitestreamExports.check(exports.setTime(db, UnsafeMutablePointer(mutating: text)), "moving the replica to \(time)")
        }
    }
}
