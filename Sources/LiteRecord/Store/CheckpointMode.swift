/// How a checkpoint (``RecordStack/checkpoint(_:)``) treats the connections
/// that are reading or writing meanwhile; named after SQLite's modes
/// (https://sqlite.org/c3ref/wal_checkpoint_v2.html).
///
/// ```swift
/// try stack.checkpoint(.passive)    // copy what can be copied now, wait for nobody
/// try stack.checkpoint(.truncate)   // copy everything, then empty the -wal file
/// ```
public enum CheckpointMode: Sendable, Equatable {
    /// Copies as many frames as it can without waiting for any reader or
    /// writer (`PASSIVE`): what SQLite's automatic checkpoint does.
    case passive
    /// Waits (up to the busy timeout) until no writer writes and every reader
    /// reads the newest snapshot, then copies every frame (`FULL`).
    case full
    /// As ``full``, then also waits for readers to leave the log, so that the
    /// next write starts it over from the beginning (`RESTART`).
    case restart
    /// As ``restart``, then cuts the `-wal` file to zero bytes (`TRUNCATE`).
    case truncate

    var sqlName: String {
        switch self {
        case .passive: "PASSIVE"
        case .full: "FULL"
        case .restart: "RESTART"
        case .truncate: "TRUNCATE"
        }
    }
}

/// What a checkpoint did (``RecordStack/checkpoint(_:)``).
public struct CheckpointResult: Sendable, Equatable {
    /// Whether the checkpoint did all its mode asks: `false` when another
    /// connection kept it from finishing (a reader on an older snapshot, a
    /// writer) within the busy timeout, or, for ``CheckpointMode/passive``,
    /// when frames were left that readers still need.
    public let isComplete: Bool
    /// How many frames the `-wal` file held.
    public let walFrames: Int
    /// How many of them are now in the main file.
    public let checkpointedFrames: Int

    /// A result with these counts, as ``RecordStack/checkpoint(_:)`` makes
    /// it (public so tests and wrappers can build one to compare with).
    ///
    /// ```swift
    /// #expect(try stack.checkpoint(.truncate).isComplete)
    /// ```
    public init(isComplete: Bool, walFrames: Int, checkpointedFrames: Int) {
        self.isComplete = isComplete
        self.walFrames = walFrames
        self.checkpointedFrames = checkpointedFrames
    }
}
