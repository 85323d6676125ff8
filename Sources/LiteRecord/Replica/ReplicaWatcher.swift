import Foundation

/// The second connection of a replica store: LiteRecord never reads a page
/// through it, only its transaction id.
///
/// Litestream's VFS follows new commits on each connection by polling its
/// storage once a second, and merges what it finds into the connection's page
/// index; under load that merge was seen to put an older compaction's pages
/// over newer ones (a counter of commit 119 beside the rows of commit 102,
/// until the next poll), so a connection that follows commits that way can
/// read part of one. A connection pinned at a commit reads the state
/// Litestream's restore plan gives, which is whole. So the store reads
/// through a pinned connection, and this one follows the replica: when its
/// transaction id moves, the store pins its reading connection again, to the
/// newest commit (`Store+Replica.swift`).
///
/// A watcher can stop advancing: when the replica's storage fails every
/// poll (the time since the last good poll grows), or when its level-0 files
/// have a gap — after a long suspension, Litestream's retention removed
/// files the next poll needs — which Litestream 0.5.17's VFS answers by
/// waiting for the next level-1 compaction (every 30 s by default), its
/// polls succeeding meanwhile. Past ``staleAfter`` of either — for a `file`
/// replica, of newer files in its folder than the watcher follows; for other
/// storage, of no new commit at all — the watcher rebuilds its index from
/// a fresh restore plan, at most once per ``staleAfter``, which resumes its
/// polls from the newest commit. While it stays behind, ``staleReason()``
/// says why (``ReplicaPosition/staleReason``).
///
/// Its own lock, not the store's: observation polls it while reads hold the
/// store's lock.
final class ReplicaWatcher: @unchecked Sendable {
    // @unchecked: every stored property is only touched with `lock` held.
    private let lock = NSLock()
    private var connection: Connection?
    /// The replica's location: a `file` replica's folder tells how far the
    /// replica reaches.
    private var replica: URL?
    private var attachedAt = ContinuousClock.now
    private var lastCheck: ContinuousClock.Instant?
    private var lastRepin: ContinuousClock.Instant?
    private var followed: (txid: UInt64, since: ContinuousClock.Instant)?
    private var problem: String?
    /// How long without progress makes the watcher stale. The VFS polls
    /// once a second.
    private var staleAfterValue: Duration = .seconds(10)

    var staleAfter: Duration {
        get { lock.withLock { staleAfterValue } }
        set { lock.withLock { staleAfterValue = newValue } }
    }

    func attach(_ connection: Connection, replica: URL) {
        lock.withLock {
            self.connection = connection
            self.replica = replica
            attachedAt = .now
        }
    }

    /// The newest transaction id the VFS has seen; `nil` once closed or when
    /// the VFS does not answer. Checks first (at most once a second) whether
    /// the watcher stopped advancing, and re-pins it then.
    func transactionID() -> UInt64? {
        lock.withLock {
            checkProgress()
            return currentTXID()
        }
    }

    /// Seconds since the VFS last heard from the replica's storage; `nil`
    /// before its first check.
    func secondsSinceLastPoll() -> Int64? {
        lock.withLock {
            guard let seconds = try? connection?.litestreamLag(), seconds >= 0 else { return nil }
            return seconds
        }
    }

    /// Why the watcher stopped advancing, or `nil` while it follows.
    func staleReason() -> String? {
        lock.withLock {
            checkProgress()
            return problem
        }
    }

    private func currentTXID() -> UInt64? {
        guard let text = try? connection?.litestreamTXID() else { return nil }
        return UInt64(text, radix: 16)
    }

    /// Looks, at most once a second, whether the watcher stopped advancing
    /// (``ReplicaWatcher``), and re-pins it from a fresh restore plan when
    /// it did, at most once per ``staleAfter``. Called with the lock held.
    private func checkProgress() {
        let now = ContinuousClock.now
        guard let connection, lastCheck.map({ now - $0 >= .seconds(1) }) ?? true else { return }
        lastCheck = now
        guard let txid = currentTXID() else {
            problem = "Litestream's VFS gives no transaction id for the replica's watcher"
            return
        }
        if followed?.txid != txid { followed = (txid, now) }
        let quiet = now - (followed?.since ?? now)
        let behind = reasonBehind(connection, txid: txid, quiet: quiet)
        let probe = behind == nil && replica?.isFileURL == false && quiet >= staleAfterValue
        guard behind != nil || probe else {
            problem = nil
            return
        }
        if let lastRepin, now - lastRepin < staleAfterValue { return }
        lastRepin = now
        do {
            try connection.setLitestreamTime(nil)
            let after = currentTXID() ?? txid
            if after != txid { followed = (after, now) }
            if behind == nil && after > txid {
                LogSettings.current.warning(
                    "Litestream's VFS had stopped following a replica; a fresh restore plan moved it on",
                    metadata: ["replica": "\(replica.map(LitestreamVFS.spelling) ?? "?")", "from": "\(txid)", "to": "\(after)"])
            }
            problem = behind.map { "\($0); re-read its restore plan at \(ReplicaTime.format(Date())), which reached txid \(after)" }
        } catch {
            problem = "\(behind ?? "no new commit for \(quiet.components.seconds) s"); re-reading the replica's restore plan failed: \(error)"
        }
    }

    /// Why the watcher is behind, when it is: no good poll for
    /// ``staleAfter``, or a `file` replica holding newer commits than the
    /// watcher has followed for ``staleAfter``.
    private func reasonBehind(_ connection: Connection, txid: UInt64, quiet: Duration) -> String? {
        let lag = (try? connection.litestreamLag()) ?? -1
        let silent = lag >= 0 ? Duration.seconds(lag) : ContinuousClock.now - attachedAt
        if silent >= staleAfterValue {
            return "no poll of the replica's storage has succeeded for \(silent.components.seconds) s (Litestream's VFS logs why)"
        }
        guard quiet >= staleAfterValue, let replica, replica.isFileURL else { return nil }
        let newest = LTXFiles.newestTXID(in: replica)
        guard newest > txid else { return nil }
        return
            "the replica's files reach txid \(newest), but Litestream's VFS has followed it only to txid \(txid) for \(quiet.components.seconds) s (a gap in its level-0 files, as after a suspension: it waits for the next compaction)"
    }

    func close() {
        lock.withLock {
            connection?.close()
            connection = nil
        }
    }
}
