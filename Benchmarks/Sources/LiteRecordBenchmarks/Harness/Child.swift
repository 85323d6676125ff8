import Foundation

/// What a child process prints as its last line: one JSON object.
struct ChildResult: Codable, Sendable {
    var engine: String
    var workload: String
    var milliseconds: Double
    var peakResidentKiB: Int
    var checksum: String
}

/// One measurement in its own process: the engine runs the workload on the
/// store the driver prepared, then the result goes to standard output.
enum ChildRunner {
    static func run(engine: any BenchmarkEngine, workload: Workload, store: String, count: Int) async throws -> ChildResult {
        let stopwatch = Stopwatch()
        let context = RunContext(store: store, count: count, stopwatch: stopwatch)
        var checksum: Checksum?
        switch workload {
        case .insert:
            let rows = Dataset.rows(count)
            try await engine.insert(rows, context)
        case .fetch:
            checksum = try await engine.fetch(context)
        case .query:
            checksum = try await engine.query(Dataset.queryLowerBounds(), context)
        case .update:
            try await engine.update(context)
        case .delete:
            try await engine.delete(context)
        case .enumerate:
            checksum = try await engine.enumerate(context)
        case .open:
            checksum = try await engine.open(context)
        }
        // Read the peak before the verification below allocates anything.
        let peak = Machine.peakResidentKiB()
        if workload.verifiesStore {
            checksum = try StoreVerifier.checksum(path: store, table: engine.itemTable)
        }
        return ChildResult(
            engine: engine.name, workload: workload.rawValue, milliseconds: stopwatch.milliseconds,
            peakResidentKiB: peak, checksum: checksum?.text ?? "-")
    }

    static func printResult(_ result: ChildResult) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        print(String(decoding: try encoder.encode(result), as: UTF8.self))
    }
}
