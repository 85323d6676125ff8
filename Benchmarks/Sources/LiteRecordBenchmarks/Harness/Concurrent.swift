import Foundation

/// The `concurrent` workload: on the N-row store, `readers` tasks (threads for
/// raw C) loop the query workload's 200 queries — each reader starting at its
/// own place in the cycle — while one writer inserts rows N, N+1, … of the
/// data set in transactions of `batchSize`, until `duration` has passed.
/// Each side stops at the first query or batch it starts after the deadline;
/// the rates divide by the time until the last of them finished.
///
/// What is checked: every query result has 100 rows, ages inside its range and
/// names in order; after the run the file holds exactly rows 0..<N+written of
/// the data set (the checksum of the file against the generator's). The
/// checksum printed is `verified` only if all of that holds.
struct ConcurrentRun: Sendable {
    static let duration: Duration = .seconds(2)
    static let readers = 4
    static let batchSize = 100
    /// Rows generated for the writer before the clock; a writer that used
    /// them all stops early and the run fails (raise it).
    static let rowCapacity = 300_000

    let lowerBounds: [Int]
    /// Rows N..<N+rowCapacity of the data set, in batches of `batchSize`.
    let batches: [[ItemValues]]
    let initialCount: Int

    init(initialCount: Int) {
        self.initialCount = initialCount
        lowerBounds = Dataset.queryLowerBounds()
        batches = stride(from: 0, to: Self.rowCapacity, by: Self.batchSize).map { start in
            (start..<(start + Self.batchSize)).map { Dataset.row(initialCount + $0) }
        }
    }

    /// The lower bound of reader `reader`'s `index`-th query.
    func lowerBound(reader: Int, index: Int) -> Int {
        lowerBounds[(reader * lowerBounds.count / Self.readers + index) % lowerBounds.count]
    }

    /// Whether one query's result is what `age BETWEEN lower AND lower+2
    /// ORDER BY name LIMIT 100` must return on a store of at least N rows.
    static func isValid(_ rows: [(age: Int, name: String)], lower: Int) -> Bool {
        guard rows.count == 100 else { return false }
        var previous: String?
        for row in rows {
            guard row.age >= lower, row.age <= lower + 2 else { return false }
            if let previous, previous > row.name { return false }
            previous = row.name
        }
        return true
    }

    /// Checks the file after the run: rows 0..<N+written, nothing else.
    func verify(_ outcome: ConcurrentOutcome, path: String, table: ItemTable) throws -> Checksum {
        if outcome.invalidReads > 0 {
            throw SQLiteFailure(code: 0, message: "\(outcome.invalidReads) of \(outcome.reads) concurrent reads returned wrong rows")
        }
        if outcome.writtenRows >= Self.rowCapacity {
            throw SQLiteFailure(code: 0, message: "the concurrent writer ran out of rows (raise ConcurrentRun.rowCapacity)")
        }
        let stored = try StoreVerifier.checksum(path: path, table: table)
        var expected = Checksum()
        for index in 0..<(initialCount + outcome.writtenRows) { expected.add(Dataset.row(index)) }
        guard stored == expected else {
            throw SQLiteFailure(
                code: 0,
                message: "after \(outcome.writtenRows) concurrent writes the store reads \(stored.text), expected \(expected.text)")
        }
        return Checksum.verified
    }
}

/// What one concurrent run did.
struct ConcurrentOutcome: Sendable {
    var reads = 0
    var invalidReads = 0
    var writtenRows = 0
    var seconds = 0.0

    var metrics: [String: Double] {
        [Metric.readsPerSecond: Double(reads) / seconds, Metric.writesPerSecond: Double(writtenRows) / seconds]
    }

    mutating func merge(_ other: ConcurrentOutcome) {
        reads += other.reads
        invalidReads += other.invalidReads
        writtenRows += other.writtenRows
    }
}

/// The names of the figures a child reports beside its time.
enum Metric {
    static let readsPerSecond = "readsPerSecond"
    static let writesPerSecond = "writesPerSecond"
    /// `memory`: heap bytes per fetched object, in total and by category.
    static let heapPerObject = "heapPerObject"
    static let objectBlock = "objectBlock"
    static let textValues = "textValues"
    static let contextPerObject = "contextPerObject"
    static let resultArray = "resultArray"
    static let rest = "rest"
    /// `memory`: the child's peak RSS (KiB) where the engine measured its
    /// heap, before the breakdown's own allocations; the child reports it
    /// as its peak.
    static let peakResidentKiB = "peakResidentKiB"
}

extension Checksum {
    /// What a `concurrent` child prints when every check passed.
    static var verified: Checksum {
        var checksum = Checksum()
        checksum.label = "verified"
        return checksum
    }
}

/// Runs the readers and the writer as Swift tasks until the deadline and
/// sums what they did; the calling thread blocks meanwhile.
enum TaskRace {
    static func run(
        readers: Int, read: @escaping @Sendable (Int, Int) async throws -> Bool,
        write: @escaping @Sendable (Int) async throws -> Int
    ) throws -> ConcurrentOutcome {
        let outcome = ChildRunner.waitFor {
            let started = ContinuousClock.now
            let deadline = started + ConcurrentRun.duration
            var total = try await withThrowingTaskGroup(of: ConcurrentOutcome.self) { group in
                for reader in 0..<readers {
                    group.addTask {
                        var outcome = ConcurrentOutcome()
                        while ContinuousClock.now < deadline {
                            if try await read(reader, outcome.reads) {
                                outcome.reads += 1
                            } else {
                                outcome.reads += 1
                                outcome.invalidReads += 1
                            }
                        }
                        return outcome
                    }
                }
                group.addTask {
                    var outcome = ConcurrentOutcome()
                    var batch = 0
                    while ContinuousClock.now < deadline, batch < ConcurrentRun.rowCapacity / ConcurrentRun.batchSize {
                        outcome.writtenRows += try await write(batch)
                        batch += 1
                    }
                    return outcome
                }
                var total = ConcurrentOutcome()
                for try await part in group { total.merge(part) }
                return total
            }
            total.seconds = (ContinuousClock.now - started).asSeconds
            return total
        }
        return try outcome.get()
    }
}
