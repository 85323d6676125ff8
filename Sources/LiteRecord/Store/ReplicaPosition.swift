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
    /// When Litestream copied that commit to the replica (the time stamped
    /// in the LTX file that ends with it: within the primary's sync interval
    /// of the commit itself). Known for a `file` replica, read from that
    /// file; `nil` for other storage, and when the file was compacted into
    /// a snapshot.
    public let commitTime: Date?
    /// How long since the replica last heard from its storage (whole
    /// seconds, Litestream's `litestream_lag()`); `nil` before its first
    /// check, which comes one poll interval (1 s) after it opened. The
    /// replica is behind its primary by at most the primary's sync interval
    /// plus this.
    public let sinceLastPoll: Duration?
    /// Why the replica stopped following its primary, or `nil` while it
    /// follows: for 10 s, Litestream's VFS has polled the replica's storage
    /// without success (storage unreachable), or — for a `file` replica —
    /// has not followed commits that its folder holds (files it needed were
    /// removed while the process was suspended). The stack then re-reads
    /// the replica's restore plan every 10 s until it follows again; reads
    /// keep the commit they had meanwhile.
    ///
    /// ```swift
    /// if let reason = replica.replicaPosition.staleReason { logger.error("replica stale: \(reason)") }
    /// ```
    public let staleReason: String?

    /// Whether the replica stopped following its primary (``staleReason``).
    public var isStale: Bool { staleReason != nil }

    /// A position, as ``RecordStack/replicaPosition`` reports it.
    ///
    /// ```swift
    /// let start = ReplicaPosition(txid: 0, commitTime: nil, sinceLastPoll: nil)
    /// ```
    public init(txid: UInt64, commitTime: Date?, sinceLastPoll: Duration?, staleReason: String? = nil) {
        self.txid = txid
        self.commitTime = commitTime
        self.sinceLastPoll = sinceLastPoll
        self.staleReason = staleReason
    }

    public var description: String {
        let time = commitTime.map { ReplicaTime.format($0) } ?? "time unknown"
        return "txid \(txid) (\(time))" + (staleReason.map { ", stale: \($0)" } ?? "")
    }
}

/// Litestream's time stamps: RFC 3339 with fractional seconds, in UTC.
enum ReplicaTime {
    static func format(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}

/// The files of a `file` replica that Litestream writes: one LTX file per
/// range of transactions, `ltx/<level>/<min txid>-<max txid>.ltx` (16
/// hexadecimal digits each), whose header holds the time of its newest
/// commit (https://github.com/superfly/ltx: big-endian, milliseconds since
/// 1970 at byte 32, after the magic `LTX1`, flags, page size, commit size and
/// the two txids).
enum LTXFiles {
    /// When the commit `txid` was made, from the LTX file that ends with it;
    /// `nil` when no such file is there (compacted away) or it is not LTX.
    static func commitTime(of txid: UInt64, in replica: URL) -> Date? {
        let levels = replica.appendingPathComponent("ltx", isDirectory: true)
        let fileManager = FileManager.default
        let suffix = "-" + hex(txid) + ".ltx"
        // Level 9 holds snapshots, stamped when they were taken, not when
        // their newest commit was made.
        for level in ((try? fileManager.contentsOfDirectory(atPath: levels.path)) ?? []).sorted() where level != "9" {
            let folder = levels.appendingPathComponent(level, isDirectory: true)
            guard let name = ((try? fileManager.contentsOfDirectory(atPath: folder.path)) ?? []).first(where: { $0.hasSuffix(suffix) }),
                let handle = FileHandle(forReadingAtPath: folder.appendingPathComponent(name).path)
            else { continue }
            defer { try? handle.close() }
            guard let header = try? handle.read(upToCount: 40), header.count == 40, header.prefix(4) == Data("LTX1".utf8) else {
                continue
            }
            let milliseconds = header[32..<40].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        }
        return nil
    }

    /// The newest transaction id any LTX file of the replica ends with; 0
    /// when there is none.
    static func newestTXID(in replica: URL) -> UInt64 {
        let levels = replica.appendingPathComponent("ltx", isDirectory: true)
        let fileManager = FileManager.default
        var newest: UInt64 = 0
        for level in (try? fileManager.contentsOfDirectory(atPath: levels.path)) ?? [] {
            for name in (try? fileManager.contentsOfDirectory(atPath: levels.appendingPathComponent(level).path)) ?? []
            where name.hasSuffix(".ltx") {
                let range = name.dropLast(4).split(separator: "-")
                if range.count == 2, let max = UInt64(range[1], radix: 16) { newest = Swift.max(newest, max) }
            }
        }
        return newest
    }

    static func hex(_ txid: UInt64) -> String {
        let digits = String(txid, radix: 16)
        return String(repeating: "0", count: max(0, 16 - digits.count)) + digits
    }
}
