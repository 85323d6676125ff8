import Dispatch

/// The threads that `RecordStack.write` and `RecordStack.read` run their
/// closures on: dispatch queues of the library's own, not the Swift
/// concurrency pool.
///
/// A closure given to `write` or `read` runs synchronously — SQLite blocks
/// while it reads and writes — and the cooperative pool has one thread per
/// core. Run there, readers looping over `read` held every thread and a
/// `write` waited for one between their reads (on two cores a writer
/// committed a fifth as many batches of rows as GRDB's `DatabasePool`,
/// whose queues are its own too). On these queues the blocking work never
/// takes a thread the rest of the program's tasks need.
enum StoreExecutors {
    /// Reads of every stack: a concurrent queue, so that reads run side by
    /// side (each on a reader connection of its store's pool).
    static let reads = DispatchTaskExecutor(
        queue: DispatchQueue(label: "LiteRecord.read", qos: .userInitiated, attributes: .concurrent))
}

/// A task executor running jobs on a dispatch queue.
final class DispatchTaskExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `queue` is immutable and DispatchQueue is thread-safe.
    private let queue: DispatchQueue

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// A serial executor running an actor's jobs on a dispatch queue of its own.
final class DispatchSerialExecutor: SerialExecutor, @unchecked Sendable {
    // @unchecked: `queue` is immutable and DispatchQueue is thread-safe.
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}
