import Synchronization

/// Hands every committed ``ChangeSet`` to each subscriber's stream.
///
/// Each stream buffers at most `limit` change sets that its subscriber has
/// not read yet. A subscriber that falls further behind has its stream ended
/// (after the change sets it holds) rather than memory growing for as long
/// as the store is open: a loop over it ends, and it can subscribe again and
/// re-read what it shows.
final class ChangeBroadcaster: Sendable {
    private let state = Locked<(next: Int, finished: Bool, continuations: [Int: AsyncStream<ChangeSet>.Continuation])>(
        (0, false, [:]))
    let limit: Int

    init(limit: Int = 10_000) {
        self.limit = limit
    }

    /// A new stream that receives every change set published from now on; it
    /// ends when the store closes (or is released), or when its subscriber
    /// falls `limit` change sets behind.
    func subscribe() -> AsyncStream<ChangeSet> {
        let (stream, continuation) = AsyncStream.makeStream(of: ChangeSet.self, bufferingPolicy: .bufferingOldest(limit))
        let token: Int? = state.withLock { state in
            if state.finished { return nil }
            state.next += 1
            state.continuations[state.next] = continuation
            return state.next
        }
        guard let token else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.continuations.removeValue(forKey: token) }
        }
        return stream
    }

    func publish(_ changes: ChangeSet) {
        let continuations = state.withLock { Array($0.continuations.values) }
        for continuation in continuations {
            if case .dropped = continuation.yield(changes) {
                // Its buffer is full: end it instead of losing change sets silently.
                continuation.finish()
                LogSettings.current.warning(
                    "a subscriber of a store's changes fell \(limit) change sets behind; its stream was ended")
            }
        }
    }

    func finish() {
        let continuations = state.withLock { state -> [AsyncStream<ChangeSet>.Continuation] in
            state.finished = true
            defer { state.continuations.removeAll() }
            return Array(state.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
