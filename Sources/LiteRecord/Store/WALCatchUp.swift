import Foundation

/// Copies a WAL that grew past ``Store/walSizeLimit`` back into the main file
/// off the writer's path: a `PASSIVE` checkpoint on a connection of its own
/// (tracked with the store's readers, so `close()` waits for it), on a
/// queue of its own, one at a time.
///
/// A reader that held an old snapshot for long leaves a large backlog when
/// it lets go. Copied by the writer — SQLite's automatic checkpoint after a
/// commit, or the bound's `RESTART` — that backlog would stall the save that
/// happened to come next (2.4 s after a 30 s read under a steady writer). A
/// `PASSIVE` checkpoint takes neither the write lock nor waits for anyone
/// (https://sqlite.org/c3ref/wal_checkpoint_v2.html), so saves go on while it
/// copies, and the writer's own checkpoint is left only the last frames.
final class WALCatchUp: Sendable {
    private struct State {
        var isRunning = false
        /// Frames the last run left uncopied (`Int.max` before the first run
        /// or after a failed one).
        var framesBehind = Int.max
    }

    private let state = Locked(State())
    private let queue = DispatchQueue(label: "LiteRecord.WALCatchUp")

    /// Frames the writer may copy itself: about 4 MiB at the default 4 KiB
    /// page, as SQLite's automatic checkpoint does after a commit.
    static let writerShare = 1000

    /// Whether the last run left at most ``writerShare`` frames behind.
    var isNearlyCaughtUp: Bool { state.withLock { $0.framesBehind <= Self.writerShare } }

    /// Runs one `PASSIVE` checkpoint on a connection from `open` (released
    /// to `release`) unless one is running already.
    func request(
        open: @escaping @Sendable () -> Connection?, release: @escaping @Sendable (Connection) -> Void
    ) {
        let starts = state.withLock { state -> Bool in
            if state.isRunning { return false }
            state.isRunning = true
            return true
        }
        guard starts else { return }
        queue.async {
            var behind = Int.max
            if let connection = open() {
                // (busy, frames in the WAL, frames checkpointed)
                if let row = try? connection.rows("PRAGMA wal_checkpoint(PASSIVE)").first, row.count == 3,
                    case .integer(let frames) = row[1], case .integer(let copied) = row[2], frames >= 0
                {
                    behind = Int(frames - copied)
                }
                release(connection)
            }
            self.state.withLock { state in
                state.framesBehind = behind
                state.isRunning = false
            }
        }
    }
}
