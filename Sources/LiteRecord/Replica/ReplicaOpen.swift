import Foundation

/// Opening a connection on a replica that may hold no snapshot yet: the VFS
/// waits for the first one without end (its `waitForRestorePlan`), so the
/// wait is bounded here.
enum ReplicaOpen {
    /// Opens a connection with `open`, once `replica` holds a snapshot,
    /// waiting at most `timeout` for one.
    ///
    /// A `file` replica's folder is looked at every 100 ms before the open.
    /// Other storage cannot be looked into without the VFS, so the open runs
    /// on a thread of its own: when it has not returned within `timeout`, it
    /// is left to finish (its connection is then closed) and this throws.
    ///
    /// - Throws: `.storeUnavailable` naming the replica and the timeout when
    ///   no snapshot came in time; what `open` throws.
    static func open(
        _ replica: URL, timeout: Duration, _ open: @escaping @Sendable () throws -> Connection
    ) throws -> Connection {
        let spelling = LitestreamVFS.spelling(replica)
        let noSnapshot = LiteRecordError(
            .storeUnavailable,
            "there is no Litestream replica at \(spelling) yet: it held no snapshot (ltx/…/*.ltx) within \(timeout) (snapshotTimeout:); run `litestream replicate` for the primary store first, or give the replica longer"
        )
        if replica.isFileURL {
            let clock = ContinuousClock()
            let deadline = clock.now + timeout
            while !holdsSnapshot(replica) {
                guard clock.now < deadline else { throw noSnapshot }
                Thread.sleep(forTimeInterval: 0.1)
            }
            return try open()
        }
        let pending = PendingOpen()
        let thread = Thread { pending.finish(Result { try open() }) }
        thread.start()
        guard let result = pending.wait(timeout) else { throw noSnapshot }
        return try result.get()
    }

    /// Whether a `file` replica holds a snapshot (any `ltx/<level>/*.ltx`).
    static func holdsSnapshot(_ replica: URL) -> Bool {
        let levels = replica.appendingPathComponent("ltx", isDirectory: true)
        let fileManager = FileManager.default
        return ((try? fileManager.contentsOfDirectory(atPath: levels.path)) ?? []).contains { level in
            ((try? fileManager.contentsOfDirectory(atPath: levels.appendingPathComponent(level).path)) ?? [])
                .contains { $0.hasSuffix(".ltx") }
        }
    }
}

/// An open running on another thread, which the caller may stop waiting for.
private final class PendingOpen: @unchecked Sendable {
    // @unchecked: `result` and `abandoned` are only touched with `lock` held;
    // the connection moves to the waiting thread once, through `result`.
    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<Connection, any Error>?
    private var abandoned = false

    func finish(_ outcome: Result<Connection, any Error>) {
        let late = lock.withLock { () -> Bool in
            if abandoned { return true }
            result = outcome
            return false
        }
        if late, case .success(let connection) = outcome { connection.close() }
        done.signal()
    }

    /// The open's result, or `nil` when it did not come within `timeout`.
    func wait(_ timeout: Duration) -> Result<Connection, any Error>? {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let arrived = done.wait(timeout: .now() + seconds) == .success
        return lock.withLock {
            if !arrived && result == nil { abandoned = true }
            return result
        }
    }
}
