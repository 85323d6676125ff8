public import Foundation

/// Where a read replica is in its primary's history: the newest commit it
/// has, by Litestream's transaction id and commit time.
///
/// ```swift
/// let replica = try RecordStack(replicaAt: replicaURL, entities: [Note.self], vfsExtension: vfsURL)
/// let position = replica.replicaPosition
/// print(position.txid, position.commitTime ?? .distantPast)
/// ```
public struct ReplicaPosition: Sendable, Hashable, CustomStringConvertible {
    /// Litestream's transaction id of the newest commit the replica reads
    /// (`litestream_txid()`): it grows by one or more with each commit of the
    /// primary that reached the replica. 0 for a stack that is not a replica.
    public let txid: UInt64
    /// When the primary made that commit, as Litestream recorded it
    /// (`litestream_time()`); `nil` when the VFS does not say.
    public let commitTime: Date?
    /// How long since the replica last heard from its storage (whole
    /// seconds, Litestream's `litestream_lag()`); `nil` before its first
    /// check, which comes one poll interval (1 s) after it opened. The
    /// replica is behind its primary by at most the primary's sync interval
    /// plus this.
    public let sinceLastPoll: Duration?

    public init(txid: UInt64, commitTime: Date?, sinceLastPoll: Duration?) {
        self.txid = txid
        self.commitTime = commitTime
        self.sinceLastPoll = sinceLastPoll
    }

    public var description: String {
        let time = commitTime.map { ReplicaTime.format($0) } ?? "time unknown"
        return "txid \(txid) (\(time))"
    }
}

/// Litestream's time stamps: RFC 3339 with fractional seconds, in UTC.
enum ReplicaTime {
    static func format(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }

    static func parse(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted)) {
            return date
        }
        return try? Date(text, strategy: .iso8601)
    }
}
