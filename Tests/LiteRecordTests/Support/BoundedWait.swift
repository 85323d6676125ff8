import Foundation
import Synchronization

/// Resumes a continuation once: with whichever comes first, the work's
/// result or the timeout's `nil`.
private final class FirstResult<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T?, any Error>?>

    init(_ continuation: CheckedContinuation<T?, any Error>) {
        self.continuation = Mutex(continuation)
    }

    func resume(_ result: Result<T?, any Error>) {
        let continuation = continuation.withLock { stored -> CheckedContinuation<T?, any Error>? in
            let taken = stored
            stored = nil
            return taken
        }
        continuation?.resume(with: result)
    }
}

/// Runs `body` on a thread of its own and waits at most `seconds` for it
/// without blocking the caller's thread: what `body` returns, or `nil` when it
/// did not finish in time. For tests of code that could deadlock: a
/// regression fails the test instead of hanging the run (the stuck thread is
/// left behind until the process ends).
func finishingOnThread<T: Sendable>(within seconds: Double, _ body: @escaping @Sendable () throws -> T) async throws -> T? {
    try await withCheckedThrowingContinuation { continuation in
        let first = FirstResult(continuation)
        Thread { first.resume(Result { try body() }) }.start()
        Task {
            try? await Task.sleep(for: .seconds(seconds))
            first.resume(.success(nil))
        }
    }
}

/// Thread-safe storage for what a closure running elsewhere saw.
final class Shared<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) {
        storage = Mutex(value)
    }

    var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    /// Runs `body` with the value, behind the lock.
    func withLock<T: Sendable>(_ body: (inout sending Value) -> sending T) -> T { storage.withLock(body) }
}
