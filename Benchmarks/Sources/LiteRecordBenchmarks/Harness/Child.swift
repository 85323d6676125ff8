import Foundation

/// What a child process prints as its last line: one JSON object.
struct ChildResult: Codable, Sendable {
    var engine: String
    var workload: String
    var milliseconds: Double
    var peakResidentKiB: Int
    var checksum: String
    /// Statements the workload ran, when the child was asked to count them.
    var statements: Int?
    /// Figures other than the time (`Metric` names): the concurrent rates,
    /// the memory breakdown.
    var metrics: [String: Double]?
}

/// One measurement in its own process: the engine runs the workload on the
/// store the driver prepared, then the result goes to standard output.
enum ChildRunner {
    static func run(
        engine: any BenchmarkEngine, workload: Workload, store: String, count: Int, countStatements: Bool = false
    ) throws -> ChildResult {
        let stopwatch = Stopwatch()
        let counter = StatementCounter(enabled: countStatements)
        let context = RunContext(store: store, count: count, stopwatch: stopwatch, statements: counter)
        // Generated before anything is timed, identical for every engine.
        let rows = workload == .insert || workload == .insertBuilt ? Dataset.rows(count) : []
        let lowerBounds = Dataset.queryLowerBounds()
        var checksum: Checksum?
        var metrics: [String: Double]?
        if workload == .concurrent, let engine = engine as? any ConcurrentEngine {
            let run = ConcurrentRun(initialCount: count)
            let outcome = try engine.concurrent(run, context)
            metrics = outcome.metrics
            checksum = try run.verify(outcome, path: store, table: engine.itemTable)
        } else if workload == .launch, let engine = engine as? any LaunchEngine {
            checksum = try engine.launch(context)
        } else if workload.isMemory, let engine = engine as? any MemoryEngine {
            (checksum, metrics) = try engine.memory(context, workload)
        } else if let engine = engine as? any SynchronousEngine {
            checksum = try perform(workload, on: engine, rows: rows, lowerBounds: lowerBounds, context)
        } else if let engine = engine as? any AsynchronousEngine {
            let outcome = waitFor { try await perform(workload, on: engine, rows: rows, lowerBounds: lowerBounds, context) }
            checksum = try outcome.get()
        }
        // Read the peak before the verification below allocates anything; a
        // memory workload's engine read it before its breakdown's allocations.
        let peak = metrics?.removeValue(forKey: Metric.peakResidentKiB).map { Int($0) } ?? Machine.peakResidentKiB()
        if workload.isRelationship, workload.verifiesStore {
            checksum = try LibrarySchema.checksum(path: store, tables: engine.libraryTables)
        } else if workload.verifiesStore {
            checksum = try StoreVerifier.checksum(path: store, table: engine.itemTable)
        }
        return ChildResult(
            engine: engine.name, workload: workload.rawValue, milliseconds: stopwatch.milliseconds,
            peakResidentKiB: peak, checksum: checksum?.text ?? "-", statements: countStatements ? counter.count : nil,
            metrics: metrics)
    }

    private static func perform(
        _ workload: Workload, on engine: any SynchronousEngine, rows: [ItemValues], lowerBounds: [Int], _ context: RunContext
    ) throws -> Checksum? {
        switch workload {
        case .insert: try engine.insert(rows, context)
        case .insertBuilt:
            guard let engine = engine as? any BuildingInsertEngine else {
                throw UsageError("\(engine.name) does not run insert-built")
            }
            try engine.insertBuilt(rows, context)
        case .concurrent, .memory, .memoryPlain, .memoryUser, .launch:
            throw UsageError("\(engine.name) does not run \(workload.rawValue)")
        case .fetch: return try engine.fetch(context)
        case .query: return try engine.query(lowerBounds, context)
        case .update: try engine.update(context)
        case .delete: try engine.delete(context)
        case .enumerate: return try engine.enumerate(context)
        case .open: return try engine.open(context)
        case .relFetch, .relWalk, .relCascade:
            guard let engine = engine as? any RelationshipEngine else {
                throw UsageError("\(engine.name) does not run the relationship workloads")
            }
            switch workload {
            case .relFetch: return try engine.fetchBooksWithAuthors(context)
            case .relWalk: return try engine.walkAuthorsBooks(context)
            default: try engine.cascadeDelete(context)
            }
        }
        return nil
    }

    private static func perform(
        _ workload: Workload, on engine: any AsynchronousEngine, rows: [ItemValues], lowerBounds: [Int], _ context: RunContext
    ) async throws -> Checksum? {
        switch workload {
        case .insert: try await engine.insert(rows, context)
        case .insertBuilt, .concurrent, .memory, .memoryPlain, .memoryUser, .launch:
            throw UsageError("\(engine.name) does not run \(workload.rawValue)")
        case .fetch: return try await engine.fetch(context)
        case .query: return try await engine.query(lowerBounds, context)
        case .update: try await engine.update(context)
        case .delete: try await engine.delete(context)
        case .enumerate: return try await engine.enumerate(context)
        case .open: return try await engine.open(context)
        case .relFetch, .relWalk, .relCascade:
            throw UsageError("\(engine.name) does not run the relationship workloads")
        }
        return nil
    }

    /// Runs async work from synchronous code by blocking this thread: only the
    /// Fluent and `concurrent` children start Swift concurrency at all.
    static func waitFor<T>(_ body: @escaping () async throws -> T) -> Result<T, any Error> {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        let work = UncheckedSendable(body)
        Task.detached {
            do {
                box.result = .success(try await work.value())
            } catch {
                box.result = .failure(error)
            }
            done.signal()
        }
        done.wait()
        return box.result ?? .failure(SQLiteFailure(code: 0, message: "no result"))
    }

    static func printResult(_ result: ChildResult) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        print(String(decoding: try encoder.encode(result), as: UTF8.self))
    }
}

/// Carries the async body and its result across the detached task.
private final class ResultBox<T>: @unchecked Sendable {
    // @unchecked: written once by the task before it signals the semaphore,
    // read by the waiting thread only after the signal.
    var result: Result<T, any Error>?
}

private struct UncheckedSendable<T>: @unchecked Sendable {
    // @unchecked: the closure (and the non-Sendable context it captures) is
    // used by the detached task only, while the creating thread blocks.
    let value: T
    init(_ value: T) { self.value = value }
}
