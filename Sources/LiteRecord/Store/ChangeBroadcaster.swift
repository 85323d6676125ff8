import Synchronization

/// Hands every committed ``ChangeSet`` to each subscriber's stream.
final class ChangeBroadcaster: Sendable {
    private let state = Locked<(next: Int, finished: Bool, continuations: [Int: AsyncStream<ChangeSet>.Continuation])>(
        (0, false, [:]))

    /// A new stream that receives every change set published from now on; it
    /// ends when the store closes.
    func subscribe() -> AsyncStream<ChangeSet> {
        let (stream, continuation) = AsyncStream.makeStream(of: ChangeSet.self, bufferingPolicy: .unbounded)
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
        for continuation in continuations { continuation.yield(changes) }
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
