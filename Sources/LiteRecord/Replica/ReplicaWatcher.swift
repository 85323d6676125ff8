import Foundation

/// The second connection of a replica store: LiteRecord never reads a page
/// through it, only its transaction id.
///
/// Litestream's VFS follows new commits on each connection by polling its
/// storage once a second, and merges what it finds into the connection's page
/// index; under load that merge was seen to put an older compaction's pages
/// over newer ones (a counter of commit 119 beside the rows of commit 102,
/// until the next poll), so a connection that follows commits that way can
/// read part of one. A connection moved to a time ("pinned") stops polling
/// and reads the state Litestream's restore plan gives, which is whole. So
/// the store reads through a pinned connection, and this one follows the
/// replica: when its transaction id moves, the store pins its reading
/// connection again, to the newest commit (`Store+Replica.swift`).
///
/// Its own lock, not the store's: observation polls it while reads hold the
/// store's lock.
final class ReplicaWatcher: @unchecked Sendable {
    // @unchecked: `connection` is only touched with `lock` held.
    private let lock = NSLock()
    private var connection: Connection?

    func attach(_ connection: Connection) {
        lock.withLock { self.connection = connection }
    }

    /// The newest transaction id the VFS has seen; `nil` once closed or when
    /// the VFS does not answer.
    func transactionID() -> UInt64? {
        lock.withLock {
            guard let text = try? connection?.litestreamTXID() else { return nil }
            return UInt64(text, radix: 16)
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

    func close() {
        lock.withLock {
            connection?.close()
            connection = nil
        }
    }
}
