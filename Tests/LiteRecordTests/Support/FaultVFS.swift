import CSQLite
import Foundation

/// A SQLite VFS for tests that wraps the default one and fails the Nth
/// `xWrite`, `xSync` or `xTruncate` of the files under one folder — or the
/// Nth call of `xOpen`, `xShmMap`, `xFileSize`, `xLock`, `xDelete`, `xAccess`,
/// or a read cut short (``Method``) — as SQLite's own I/O error and crash
/// tests do (https://sqlite.org/testing.html#i_o_error_testing).
///
/// It is registered as the default VFS, so the library needs no option to
/// use it, and it changes nothing for any other file: a file outside the
/// routed folder is opened by the real VFS into the same memory, with the
/// real VFS's own methods (no wrapper runs for it afterwards), so tests
/// running in parallel are not disturbed. Files under the folder get the
/// wrapping methods below, which count and fail calls while ``arm(_:)`` says so.
///
/// A simulated crash drops every write not yet followed by an `xSync` of its
/// file (a power loss: the page cache is lost), and from that call on every
/// write, sync, truncate and delete fails, as nothing runs after a crash.
/// ``restoreAfterCrash()`` puts the unsynced regions back once every
/// connection is closed (a process crash keeps them: the kernel had them).
enum FaultVFS {
    /// What the Nth counted call does.
    enum Fault: String, Sendable, CaseIterable {
        /// Fails with `SQLITE_IOERR_WRITE` / `_FSYNC` / `_TRUNCATE`.
        case ioError = "I/O error"
        /// Fails with `SQLITE_FULL`.
        case diskFull = "disk full"
        /// Fails, and drops every unsynced write (see ``restoreAfterCrash()``).
        case crash = "crash"
        /// A full disk that stays full: this call and every later write, sync,
        /// truncate and directory change fail with `SQLITE_FULL` until
        /// ``clearPersistentFault()`` — so rollback, cleanup and the
        /// checkpoint in `close()` run under it.
        case persistentDiskFull = "persistent disk full"
        /// A crash after which, from a seed, each unsynced write is dropped,
        /// kept, or torn (its last sector half written), file by file
        /// (``restoreAfterCrash(seed:)``).
        case tornCrash = "torn crash"
        /// The process dies here: this call and every later one fail, but the
        /// operating system keeps every write already made (nothing is
        /// undone), so every commit acknowledged before must be there.
        case processCrash = "process crash"

        var crashes: Bool { self == .crash || self == .tornCrash || self == .processCrash }
        /// Whether a crash may lose writes not yet synced (a power loss).
        var losesUnsyncedWrites: Bool { self == .crash || self == .tornCrash }
    }

    /// A VFS method other than a write, sync or truncate, failed once at its
    /// Nth call (``arm(method:failAt:)``), as SQLite's I/O error tests fail
    /// every call in turn.
    enum Method: String, Sendable, CaseIterable {
        /// `xOpen` of a file under the folder (the store, `-wal`, `-shm`,
        /// `-journal`, a copy), or of a temporary file (statement journals,
        /// sorters) opened where ``routesTemporaryFiles`` is set: `SQLITE_CANTOPEN`.
        case open = "xOpen"
        /// `xShmMap`: `SQLITE_IOERR_SHMMAP`.
        case shmMap = "xShmMap"
        /// `xFileSize`: `SQLITE_IOERR_FSTAT`.
        case fileSize = "xFileSize"
        /// `xLock`: `SQLITE_IOERR_LOCK`.
        case lock = "xLock"
        /// `xDelete`: `SQLITE_IOERR_DELETE`.
        case delete = "xDelete"
        /// `xAccess`: `SQLITE_IOERR_ACCESS`.
        case access = "xAccess"
        /// `xRead` reads the first half and zero-fills the rest:
        /// `SQLITE_IOERR_SHORT_READ`, as a read that met the end of the file.
        /// Not of a main database file: SQLite's pager takes a short read
        /// there for the file's end and uses the zeros as the page
        /// (`readDbPage` in pager.c), trusting the VFS's promise that only the
        /// end cuts a read short (https://sqlite.org/c3ref/io_methods.html) —
        /// a short read in the middle of that file is a lying VFS, which
        /// nothing above SQLite can tell from data; injected there, it
        /// damages the store whatever the library does.
        case shortRead = "short read"
    }

    /// Whether the temporary files SQLite opens (no name: statement journals,
    /// sorters, temporary tables) are routed too: set for the workload's own
    /// task, as they cannot be told from other tests' by a folder.
    @TaskLocal static var routesTemporaryFiles = false

    /// What a temporary file is called in ``State/paths``.
    static let temporaryPath = "(temporary)"

    /// Routes every file opened later under `folder` through the wrapper;
    /// `nil` stops routing new files. Registers the VFS the first time.
    static func route(_ folder: URL?) {
        _ = registerOnce
        state.withLock {
            $0.folder = folder.map { $0.standardizedFileURL.path + "/" }
            // SQLite may name the files by the folder's real path: on macOS
            // the temporary folder /var/folders/… is /private/var/folders/….
            $0.realFolder = folder.map { $0.standardizedFileURL.resolvingSymlinksInPath().path + "/" }
        }
    }

    /// Prepares a fault point: the `failAt`th (from 1) write, sync or
    /// truncate counted after ``startCounting()`` fails with `fault`;
    /// `failAt` 0 only counts. With `.crash`, writes are recorded from now
    /// on, so that a crash can drop those not synced.
    static func arm(failAt: Int, _ fault: Fault) {
        state.withLock { state in
            state.method = nil
            state.holdsCounting = false
            state.methodFailAt = 0
            state.methodCounts = [:]
            state.syncs = [:]
            state.acknowledged = nil
            state.counting = false
            state.recording = fault.crashes
            state.persisting = false
            state.count = 0
            state.failAt = failAt
            state.fault = fault
            state.crashed = false
            state.failed = false
            state.undo.removeAll()
        }
    }

    /// Prepares a fault point of `method`: its `failAt`th call (from 1)
    /// counted after ``startCounting()`` fails, once; writes, syncs and
    /// truncates are only counted.
    static func arm(method: Method, failAt: Int) {
        arm(failAt: 0, .ioError)
        state.withLock { state in
            state.method = method
            state.methodFailAt = failAt
        }
    }

    /// How many calls of each method were counted since the last arm.
    static var methodCalls: [Method: Int] { state.withLock { $0.methodCounts } }

    /// Marks the state after the operation as acknowledged to the caller
    /// (its save, migration or open returned), for the store at `url`: from
    /// now on a sync of its `-wal` makes that state durable even across a
    /// power loss (`synchronous = NORMAL` syncs the WAL only at checkpoints).
    /// Only the first call after ``arm(failAt:_:)`` counts.
    static func acknowledge(_ url: URL) {
        let wal = url.standardizedFileURL.path + "-wal"
        state.withLock { state in
            if state.acknowledged == nil { state.acknowledged = (wal, state.syncs[wal, default: 0]) }
        }
    }

    /// Whether the state after was acknowledged since the last arm, and
    /// whether the store's `-wal` was synced after that (before any crash).
    static var acknowledgement: (acknowledged: Bool, syncedSince: Bool) {
        state.withLock { state in
            guard let (wal, syncs) = state.acknowledged else { return (false, false) }
            return (true, state.syncs[wal, default: 0] > syncs)
        }
    }

    /// Counts the wrapped files' writes, syncs and truncates from now on.
    static func startCounting() {
        state.withLock { $0.counting = true }
    }

    /// Stops counting (unless ``countThroughTheEnd()`` holds it); returns
    /// how many calls were counted and whether the fault was injected.
    @discardableResult
    static func disarm() -> (calls: Int, injected: Bool) {
        state.withLock { state in
            if !state.holdsCounting {
                state.counting = false
                state.recording = false
            }
            return (state.count, state.failed)
        }
    }

    /// Keeps counting past the operation's ``disarm()``, through whatever
    /// the workload does after it (the close that checkpoints its commit),
    /// until ``finish()``: a crash there leaves a WAL for the next open to recover.
    static func countThroughTheEnd() {
        state.withLock { $0.holdsCounting = true }
    }

    /// Stops counting whatever holds it; as ``disarm()`` returns.
    @discardableResult
    static func finish() -> (calls: Int, injected: Bool) {
        state.withLock { $0.holdsCounting = false }
        return disarm()
    }

    /// Ends a ``Fault/persistentDiskFull``: the disk has room again.
    static func clearPersistentFault() {
        state.withLock { $0.persisting = false }
    }

    /// Whether a ``Fault/persistentDiskFull`` is in force (and no crash).
    static var isDiskFullPersisting: Bool { state.withLock { $0.persisting && !$0.crashed } }

    /// Whether a crash was simulated since the last ``arm(failAt:_:)``; I/O
    /// keeps failing until ``restoreAfterCrash()``.
    static var hasCrashed: Bool { state.withLock { $0.crashed } }

    /// Called with the path of every write to a routed file, outside any lock.
    static func observeWrites(_ observer: (@Sendable (String) -> Void)?) {
        state.withLock { $0.writeObserver = observer }
    }

    /// Undoes every write and truncate made since its file's last sync, file
    /// by file, newest first; call once nothing has the files open. With a
    /// `seed`, each unsynced change is instead dropped, kept or torn (the
    /// last sector of a write half on disk) as the seed decides, as a disk
    /// that reorders and tears unsynced writes may leave them.
    static func restoreAfterCrash(seed: UInt64? = nil, keepingEverything: Bool = false) {
        let undo = state.withLock { state in
            defer {
                state.undo.removeAll()
                state.crashed = false
            }
            return keepingEverything ? [:] : state.undo
        }
        for (path, entries) in undo.sorted(by: { $0.key < $1.key }) {
            guard let first = entries.first else { continue }
            let descriptor = open(path, O_RDWR)
            guard descriptor >= 0 else { continue }
            var random = SplitMix(seed: (seed ?? 0) ^ UInt64(truncatingIfNeeded: path.utf8.reduce(5381) { $0 &* 33 &+ Int($1) }))
            var keptAny = false
            for entry in entries.reversed() {
                switch seed == nil ? 0 : random.next() % 3 {
                case 1: keptAny = true
                case 2 where entry.isWrite:
                    keptAny = true
                    entry.undo(descriptor, from: max(entry.offset, entry.offset + entry.length - 256))
                default: entry.undo(descriptor, from: entry.offset)
                }
            }
            if !keptAny { _ = ftruncate(descriptor, off_t(first.sizeBefore)) }
            close(descriptor)
        }
    }

    // MARK: State

    /// One region a write or truncate changed since the file's last sync:
    /// the bytes it held, and the file's size before the change.
    struct UndoEntry {
        var offset: Int64
        var original: Data
        var sizeBefore: Int64
        /// How many bytes the write wrote, or the truncate cut.
        var length: Int64
        /// A write (which a crash may tear), not a truncate.
        var isWrite = true

        /// Puts back what the change replaced from `start` on: the original
        /// bytes, and zeros where the change wrote past the file's old end.
        func undo(_ descriptor: Int32, from start: Int64) {
            let skip = Int(start - offset)
            if skip < original.count {
                _ = original.dropFirst(skip).withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(start)) }
            }
            let zeros = Int(length) - max(skip, original.count)
            if zeros > 0 {
                _ = Data(count: zeros).withUnsafeBytes {
                    pwrite(descriptor, $0.baseAddress, $0.count, off_t(offset + Int64(max(skip, original.count))))
                }
            }
        }
    }

    /// A small seeded generator (SplitMix64), so a torn crash is repeatable.
    struct SplitMix {
        var seed: UInt64
        mutating func next() -> UInt64 {
            seed &+= 0x9E37_79B9_7F4A_7C15
            var z = seed
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    struct State {
        var folder: String?
        /// ``folder`` with its symbolic links resolved.
        var realFolder: String?

        /// Whether `path` is under the routed folder, by either spelling.
        func routes(_ path: String) -> Bool {
            guard let folder else { return false }
            return path.hasPrefix(folder) || realFolder.map { path.hasPrefix($0) } == true
        }
        var counting = false
        /// ``disarm()`` does not stop counting (``countThroughTheEnd()``).
        var holdsCounting = false
        var recording = false
        var count = 0
        var failAt = 0
        var fault = Fault.ioError
        var crashed = false
        /// A ``Fault/persistentDiskFull`` was injected and not cleared yet.
        var persisting = false
        var failed = false
        var paths: [Int: String] = [:]
        /// The wrapped files opened as a main database (`SQLITE_OPEN_MAIN_DB`).
        var mainDatabases: Set<Int> = []
        var nextID = 1
        var undo: [String: [UndoEntry]] = [:]
        var writeObserver: (@Sendable (String) -> Void)?
        /// The method to fail, at which of its counted calls, and the calls counted.
        var method: Method?
        var methodFailAt = 0
        var methodCounts: [Method: Int] = [:]
        /// Successful syncs per path since the last arm.
        var syncs: [String: Int] = [:]
        /// The `-wal` path of the store whose state after was acknowledged,
        /// and how many times it had been synced then.
        var acknowledged: (wal: String, syncs: Int)?
    }

    /// What a counted call does.
    enum Decision {
        case proceed(record: Bool)
        case fail(Int32)
    }

    static let state = FaultLock(State())

    /// The real default VFS, found before this one is registered.
    nonisolated(unsafe) static let real: UnsafeMutablePointer<sqlite3_vfs> = sqlite3_vfs_find(nil)!

    /// The first bytes of a wrapped file: its `sqlite3_file` header, then its id.
    static let header = 16

    private static let registerOnce: Void = {
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        var copy = real.pointee
        copy.pNext = nil
        copy.zName = UnsafePointer(strdup("literecord-faults"))
        copy.szOsFile = real.pointee.szOsFile + Int32(header)
        copy.xOpen = faultOpen
        copy.xDelete = faultDelete
        copy.xAccess = faultAccess
        vfs.initialize(to: copy)
        sqlite3_vfs_register(vfs, 1)
    }()

    /// Decides the fate of one write, sync or truncate of file `id`.
    static func decide(_ id: Int, failing code: Int32) -> Decision {
        state.withLock { state in
            if state.crashed { return .fail(code) }
            if state.persisting { return .fail(SQLITE_FULL) }
            guard state.counting else { return .proceed(record: state.recording) }
            state.count += 1
            guard state.count == state.failAt else { return .proceed(record: state.recording) }
            state.failed = true
            switch state.fault {
            case .ioError: return .fail(code)
            case .diskFull: return .fail(SQLITE_FULL)
            case .persistentDiskFull:
                state.persisting = true
                return .fail(SQLITE_FULL)
            case .crash, .tornCrash, .processCrash:
                state.crashed = true
                return .fail(code)
            }
        }
    }

    /// Decides the fate of one of the library's own directory changes or
    /// syncs (``CrashingFileOperations``), counted with the writes: the
    /// `errno` to fail it with, or `nil`.
    static func decideDirectoryChange() -> Int32? {
        switch decide(0, failing: SQLITE_IOERR) {
        case .proceed: nil
        case .fail(let code): code == SQLITE_FULL ? ENOSPC : EIO
        }
    }

    /// Whether this call of `method` fails: counted only while counting,
    /// and never after a crash (nothing runs then; the write path says so).
    static func failsCall(of method: Method) -> Bool {
        state.withLock { state in
            guard state.counting, !state.crashed else { return false }
            state.methodCounts[method, default: 0] += 1
            guard state.method == method, state.methodCounts[method] == state.methodFailAt else { return false }
            state.failed = true
            return true
        }
    }

    static func isMainDatabase(_ id: Int) -> Bool { state.withLock { $0.mainDatabases.contains(id) } }

    /// Whether `path` is under the routed folder.
    static func isRouted(_ path: String) -> Bool {
        state.withLock { state in state.routes(path) }
    }

    static func path(of id: Int) -> String? { state.withLock { $0.paths[id] } }

    static func record(_ entry: UndoEntry, for id: Int) {
        state.withLock { state in
            // A temporary file is gone after a crash: nothing to put back.
            guard let path = state.paths[id], path != temporaryPath else { return }
            state.undo[path, default: []].append(entry)
        }
    }

    static func synced(_ id: Int) {
        state.withLock { state in
            guard let path = state.paths[id] else { return }
            state.undo[path] = nil
            state.syncs[path, default: 0] += 1
        }
    }
}

/// A lock around a value, usable from the C callbacks (which cannot capture).
final class FaultLock<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched inside `lock`.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

// MARK: The VFS and file methods (C callbacks)

// SQLite's extended I/O error codes are macros Swift does not import.
private let ioErrorWrite = SQLITE_IOERR | (3 << 8)
private let ioErrorSync = SQLITE_IOERR | (4 << 8)
private let ioErrorTruncate = SQLITE_IOERR | (6 << 8)
private let ioErrorDelete = SQLITE_IOERR | (10 << 8)
private let ioErrorShortRead = SQLITE_IOERR | (2 << 8)
private let ioErrorFileStat = SQLITE_IOERR | (7 << 8)
private let ioErrorAccess = SQLITE_IOERR | (13 << 8)
private let ioErrorLock = SQLITE_IOERR | (15 << 8)
private let ioErrorShmMap = SQLITE_IOERR | (21 << 8)

private func wrappedFile(_ file: UnsafeMutablePointer<sqlite3_file>?) -> UnsafeMutablePointer<sqlite3_file> {
    UnsafeMutableRawPointer(file!).advanced(by: FaultVFS.header).assumingMemoryBound(to: sqlite3_file.self)
}

private func fileID(_ file: UnsafeMutablePointer<sqlite3_file>?) -> Int {
    UnsafeMutableRawPointer(file!).load(fromByteOffset: 8, as: Int.self)
}

private func realMethods(_ file: UnsafeMutablePointer<sqlite3_file>?) -> sqlite3_io_methods {
    wrappedFile(file).pointee.pMethods.pointee
}

private let faultOpen:
    @convention(c) (
        UnsafeMutablePointer<sqlite3_vfs>?, sqlite3_filename?, UnsafeMutablePointer<sqlite3_file>?, Int32, UnsafeMutablePointer<Int32>?
    ) -> Int32 = { _, name, file, flags, outFlags in
        let real = FaultVFS.real
        let named = name.map { String(cString: $0) }
        let routed = FaultVFS.state.withLock { state in
            named.map { path in state.routes(path) } ?? (state.folder != nil && FaultVFS.routesTemporaryFiles)
        }
        let path = named ?? FaultVFS.temporaryPath
        guard routed, let file else { return real.pointee.xOpen!(real, name, file, flags, outFlags) }
        if FaultVFS.failsCall(of: .open) {
            file.pointee.pMethods = nil
            return SQLITE_CANTOPEN
        }
        let result = real.pointee.xOpen!(real, name, wrappedFile(file), flags, outFlags)
        guard result == SQLITE_OK else {
            file.pointee.pMethods = nil
            return result
        }
        let id = FaultVFS.state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.paths[id] = path
            if flags & SQLITE_OPEN_MAIN_DB != 0 { state.mainDatabases.insert(id) }
            return id
        }
        UnsafeMutableRawPointer(file).storeBytes(of: id, toByteOffset: 8, as: Int.self)
        file.pointee.pMethods = UnsafePointer(faultMethods)
        return result
    }

private let faultDelete: @convention(c) (UnsafeMutablePointer<sqlite3_vfs>?, UnsafePointer<CChar>?, Int32) -> Int32 = {
    _, name, syncDirectory in
    let real = FaultVFS.real
    if let name {
        let path = String(cString: name)
        let crashed = FaultVFS.state.withLock { state in
            guard state.routes(path) else { return false }
            if state.crashed { return true }
            state.undo[path] = nil
            return false
        }
        if crashed { return ioErrorDelete }
        if FaultVFS.isRouted(path) && FaultVFS.failsCall(of: .delete) { return ioErrorDelete }
    }
    return real.pointee.xDelete!(real, name, syncDirectory)
}

private let faultAccess: @convention(c) (UnsafeMutablePointer<sqlite3_vfs>?, UnsafePointer<CChar>?, Int32, UnsafeMutablePointer<Int32>?) -> Int32 = {
    _, name, flags, result in
    let real = FaultVFS.real
    if let name, FaultVFS.isRouted(String(cString: name)), FaultVFS.failsCall(of: .access) { return ioErrorAccess }
    return real.pointee.xAccess!(real, name, flags, result)
}

nonisolated(unsafe) private let faultMethods: UnsafeMutablePointer<sqlite3_io_methods> = {
    let methods = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
    methods.initialize(
        to: sqlite3_io_methods(
            // Version 2: shared memory but no memory-mapped I/O, so that every
            // write goes through xWrite.
            iVersion: 2,
            xClose: { file in
                let id = fileID(file)
                let result = realMethods(file).xClose!(wrappedFile(file))
                FaultVFS.state.withLock {
                    _ = $0.paths.removeValue(forKey: id)
                    _ = $0.mainDatabases.remove(id)
                }
                return result
            },
            xRead: { file, buffer, amount, offset in
                let result = realMethods(file).xRead!(wrappedFile(file), buffer, amount, offset)
                guard result == SQLITE_OK, amount > 1, let buffer, !FaultVFS.isMainDatabase(fileID(file)),
                    FaultVFS.failsCall(of: .shortRead)
                else { return result }
                // As a read that met the end of the file: the tail is zeros.
                let kept = Int(amount) / 2
                memset(buffer.advanced(by: kept), 0, Int(amount) - kept)
                return ioErrorShortRead
            },
            xWrite: faultWrite,
            xTruncate: faultTruncate,
            xSync: { file, flags in
                let id = fileID(file)
                switch FaultVFS.decide(id, failing: ioErrorSync) {
                case .fail(let code): return code
                case .proceed:
                    let result = realMethods(file).xSync!(wrappedFile(file), flags)
                    if result == SQLITE_OK { FaultVFS.synced(id) }
                    return result
                }
            },
            xFileSize: { file, size in
                FaultVFS.failsCall(of: .fileSize) ? ioErrorFileStat : realMethods(file).xFileSize!(wrappedFile(file), size)
            },
            xLock: { file, lock in FaultVFS.failsCall(of: .lock) ? ioErrorLock : realMethods(file).xLock!(wrappedFile(file), lock) },
            xUnlock: { file, lock in realMethods(file).xUnlock!(wrappedFile(file), lock) },
            xCheckReservedLock: { file, result in realMethods(file).xCheckReservedLock!(wrappedFile(file), result) },
            xFileControl: { file, operation, argument in realMethods(file).xFileControl!(wrappedFile(file), operation, argument) },
            xSectorSize: { file in realMethods(file).xSectorSize!(wrappedFile(file)) },
            xDeviceCharacteristics: { file in realMethods(file).xDeviceCharacteristics!(wrappedFile(file)) },
            xShmMap: { file, region, size, extend, pointer in
                FaultVFS.failsCall(of: .shmMap) ? ioErrorShmMap : realMethods(file).xShmMap!(wrappedFile(file), region, size, extend, pointer)
            },
            xShmLock: { file, offset, count, flags in realMethods(file).xShmLock!(wrappedFile(file), offset, count, flags) },
            xShmBarrier: { file in realMethods(file).xShmBarrier!(wrappedFile(file)) },
            xShmUnmap: { file, delete in realMethods(file).xShmUnmap!(wrappedFile(file), delete) },
            xFetch: nil,
            xUnfetch: nil))
    return methods
}()

/// The size of `file` (a wrapped one), 0 when it cannot be read.
private func fileSize(_ file: UnsafeMutablePointer<sqlite3_file>) -> Int64 {
    var size: sqlite3_int64 = 0
    _ = file.pointee.pMethods.pointee.xFileSize!(file, &size)
    return size
}

/// The bytes `file` holds at `offset ..< offset + count`, cut at `size`.
private func originalBytes(_ file: UnsafeMutablePointer<sqlite3_file>, offset: Int64, count: Int64, size: Int64) -> Data {
    let length = max(0, min(count, size - offset))
    guard length > 0 else { return Data() }
    var data = Data(count: Int(length))
    _ = data.withUnsafeMutableBytes { file.pointee.pMethods.pointee.xRead!(file, $0.baseAddress, Int32(length), offset) }
    return data
}

private let faultWrite: @convention(c) (UnsafeMutablePointer<sqlite3_file>?, UnsafeRawPointer?, Int32, sqlite3_int64) -> Int32 = {
    file, buffer, amount, offset in
    let id = fileID(file)
    let real = wrappedFile(file)
    if let observer = FaultVFS.state.withLock({ $0.writeObserver }), let path = FaultVFS.path(of: id) { observer(path) }
    switch FaultVFS.decide(id, failing: ioErrorWrite) {
    case .fail(let code): return code
    case .proceed(let record):
        if record {
            let size = fileSize(real)
            let original = originalBytes(real, offset: offset, count: Int64(amount), size: size)
            FaultVFS.record(FaultVFS.UndoEntry(offset: offset, original: original, sizeBefore: size, length: Int64(amount)), for: id)
        }
        return real.pointee.pMethods.pointee.xWrite!(real, buffer, amount, offset)
    }
}

private let faultTruncate: @convention(c) (UnsafeMutablePointer<sqlite3_file>?, sqlite3_int64) -> Int32 = { file, size in
    let id = fileID(file)
    let real = wrappedFile(file)
    switch FaultVFS.decide(id, failing: ioErrorTruncate) {
    case .fail(let code): return code
    case .proceed(let record):
        if record {
            let before = fileSize(real)
            let tail = originalBytes(real, offset: size, count: before - size, size: before)
            FaultVFS.record(FaultVFS.UndoEntry(offset: size, original: tail, sizeBefore: before, length: before - size, isWrite: false), for: id)
        }
        return real.pointee.pMethods.pointee.xTruncate!(real, size)
    }
}
