import Foundation
import LiteRecord

#if canImport(Glibc)
import Glibc
#endif

// One run: a primary store of `--rows` items, `litestream replicate` copying
// it every `--sync-interval` into a file replica, and a replica stack over it
// in this process. Prints lines starting with `[replica]`.

struct Options {
    var litestream = ""
    var vfs = ""
    var syncInterval = "1s"
    var rows = 100_000
    var lagCommits = 1000
    var lagPause: Duration = .milliseconds(20)
    var tornCommits = 0

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let name = iterator.next() {
            let value = iterator.next() ?? ""
            switch name {
            case "--litestream": litestream = value
            case "--vfs": vfs = value
            case "--sync-interval": syncInterval = value
            case "--rows": rows = Int(value) ?? rows
            case "--lag-commits": lagCommits = Int(value) ?? lagCommits
            case "--torn-commits": tornCommits = Int(value) ?? tornCommits
            default: fatalError("unknown option \(name)")
            }
        }
        precondition(!litestream.isEmpty && !vfs.isEmpty, "usage: Replica --litestream PATH --vfs PATH [--sync-interval 1s] [--rows N] [--lag-commits N] [--torn-commits N]")
    }
}

func report(_ line: String) {
    FileHandle.standardOutput.write(Data("[replica] \(line)\n".utf8))
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

func format(_ value: Double) -> String { String(format: "%.0f", value) }

/// `litestream replicate` for the primary, restartable.
final class Replicator: @unchecked Sendable {
    let binary: String
    let config: URL
    let log: URL
    private var process: Process?

    init(binary: String, config: URL, log: URL) {
        self.binary = binary
        self.config = config
        self.log = log
    }

    func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["replicate", "-config", config.path]
        if !FileManager.default.fileExists(atPath: log.path) { try Data().write(to: log) }
        let handle = try FileHandle(forWritingTo: log)
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
    }

    func kill() {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func stop() {
        guard let process, process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

func holdsSnapshot(_ replica: URL) -> Bool {
    let levels = replica.appendingPathComponent("ltx")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: levels.path)) ?? []
    return names.contains { level in
        ((try? FileManager.default.contentsOfDirectory(atPath: levels.appendingPathComponent(level).path)) ?? [])
            .contains { $0.hasSuffix(".ltx") }
    }
}

/// Drops the kernel's page cache (root only): the cold runs read the disk.
func dropPageCache() -> Bool {
    sync()
    guard let handle = FileHandle(forWritingAtPath: "/proc/sys/vm/drop_caches") else { return false }
    defer { try? handle.close() }
    return (try? handle.write(contentsOf: Data("3\n".utf8))) != nil
}

func counter(_ phase: String, in context: RecordContext) throws -> Int {
    try Counter.findFirst(byAttribute: "phase", withValue: phase, in: context)?.value ?? 0
}

/// Commits `count` times on `primary` (the counter of `phase` and
/// `marksPerCommit` marks each), calling `between` after each commit with its
/// number and the instant it returned.
func commit(
    _ count: Int, phase: String, marksPerCommit: Int, on primary: RecordStack,
    between: (Int, ContinuousClock.Instant) async throws -> Void
) async throws {
    try await primary.write { context in context.insert(Counter(phase: phase)) }
    for number in 1...count {
        try await primary.write { context in
            let counter = try Counter.findFirst(byAttribute: "phase", withValue: phase, in: context)!
            counter.value = number
            for _ in 0..<marksPerCommit { context.insert(Mark(phase: phase, commit: number)) }
        }
        try await between(number, .now)
    }
}

// MARK: The run

let options = Options(CommandLine.arguments)
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("literecord-replica-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let primaryURL = folder.appendingPathComponent("primary.sqlite")
let replicaFolder = folder.appendingPathComponent("replica", isDirectory: true)
let config = folder.appendingPathComponent("litestream.yml")
try Data(
    """
    dbs:
      - path: \(primaryURL.path)
        replica:
          type: file
          path: \(replicaFolder.path)
          sync-interval: \(options.syncInterval)

    """.utf8
).write(to: config)

let primary = try RecordStack(
    storeAt: primaryURL, entities: entities, migration: .none, onModelMismatch: .fail, checkpoints: .leftToReplicator)
try await primary.write { context in
    for index in 0..<options.rows { context.insert(Rows.item(index)) }
}
let replicator = Replicator(binary: options.litestream, config: config, log: folder.appendingPathComponent("litestream.log"))
try replicator.start()
defer { replicator.stop() }
let clock = ContinuousClock()
let snapshotDeadline = clock.now + .seconds(60)
while !holdsSnapshot(replicaFolder) {
    guard clock.now < snapshotDeadline else { fatalError("no snapshot within 60 s") }
    try await Task.sleep(for: .milliseconds(50))
}
let replicaURL = URL(string: replicaFolder.absoluteString)!
let vfs = URL(fileURLWithPath: options.vfs)
var replica = try RecordStack(replicaAt: replicaURL, entities: entities, vfsExtension: vfs)
while try await replica.read({ try Item.count(in: $0) }) < options.rows {
    guard clock.now < snapshotDeadline else { fatalError("the replica never held the seeded rows") }
    try await Task.sleep(for: .milliseconds(50))
}
report("sync interval \(options.syncInterval), \(options.rows) items, replica open at \(replica.replicaPosition)")

// MARK: Lag

/// Reads the counter of `phase` on the replica until it reaches `last`,
/// recording when each value was first seen.
func watch(_ phase: String, until last: Int, on replica: RecordStack) async throws -> [(value: Int, at: ContinuousClock.Instant)] {
    var seen: [(Int, ContinuousClock.Instant)] = []
    var current = 0
    let deadline = ContinuousClock.now + .seconds(120)
    while current < last, ContinuousClock.now < deadline {
        let value = try await replica.read { try counter(phase, in: $0) }
        if value > current {
            seen.append((value, .now))
            current = value
        }
        try await Task.sleep(for: .milliseconds(2))
    }
    return seen
}

do {
    let watcher = Task { try await watch("lag", until: options.lagCommits, on: replica) }
    var committed: [ContinuousClock.Instant] = []
    try await commit(options.lagCommits, phase: "lag", marksPerCommit: 1, on: primary) { _, at in
        committed.append(at)
        try await Task.sleep(for: options.lagPause)
    }
    let seen = try await watcher.value
    var lags: [Double] = []
    for (index, at) in committed.enumerated() {
        let number = index + 1
        guard let first = seen.first(where: { $0.value >= number }) else { continue }
        lags.append(milliseconds(first.at - at))
    }
    // Where the replica stood still longest: what a tail of the lag is.
    var longest = (gap: Duration.zero, after: 0)
    for (previous, next) in zip(seen, seen.dropFirst()) where next.at - previous.at > longest.gap {
        longest = (next.at - previous.at, previous.value)
    }
    report("lag, sync interval \(options.syncInterval): the replica stood still longest for \(format(milliseconds(longest.gap))) ms, after showing commit \(longest.after)")
    lags.sort()
    report(
        "lag, sync interval \(options.syncInterval): \(committed.count) commits every \(options.lagPause) (a mark and the counter each), \(lags.count) seen on the replica; commit → visible p50 \(format(percentile(lags, 0.5))) ms, p99 \(format(percentile(lags, 0.99))) ms, max \(format(lags.last ?? .nan)) ms; \(seen.count) distinct replica states")
}

// MARK: Read latency

func queryAll(_ stack: RecordStack) async throws -> (Duration, Int) {
    let bounds = Rows.queryLowerBounds()
    return try await stack.read { context in
        let start = ContinuousClock.now
        var digest = 0
        for lower in bounds {
            let upper = lower + 2
            let items = try Item.fetch(
                FetchRequest(
                    predicate: #Predicate<Item> { $0.age >= lower && $0.age <= upper }, sortBy: [SortDescriptor(\.name)],
                    fetchLimit: 100),
                in: context)
            for item in items { digest = digest &* 31 &+ item.name.hashValue &+ item.age }
        }
        return (ContinuousClock.now - start, digest)
    }
}

do {
    // Both stores now hold the same rows: the replica has caught up (above).
    let canDrop = dropPageCache()
    let primaryReader = try RecordStack(storeAt: primaryURL, entities: entities)
    let (primaryCold, primaryDigest) = try await queryAll(primaryReader)
    let (primaryWarm, _) = try await queryAll(primaryReader)
    try primaryReader.close()

    try replica.close()
    _ = dropPageCache()
    replica = try RecordStack(replicaAt: replicaURL, entities: entities, vfsExtension: vfs)
    let (replicaCold, replicaDigest) = try await queryAll(replica)
    let (replicaWarm, _) = try await queryAll(replica)
    precondition(primaryDigest == replicaDigest, "the replica answered other rows than the primary")
    let coldNote = canDrop ? "page cache dropped" : "page cache NOT dropped (not root): cold = first run of a new stack"
    report(
        "query ×200 (age BETWEEN x AND x+2 ORDER BY name LIMIT 100), same rows on both: primary cold \(format(milliseconds(primaryCold))) ms, warm \(format(milliseconds(primaryWarm))) ms; replica cold \(format(milliseconds(replicaCold))) ms, warm \(format(milliseconds(replicaWarm))) ms (\(String(format: "%.1f", milliseconds(replicaWarm) / milliseconds(primaryWarm)))× warm); \(coldNote)")
}

// MARK: Torn reads

if options.tornCommits > 0 {
    let total = options.tornCommits
    let reader = Task { () -> (reads: Int, states: Int, torn: [String], last: Int) in
        var reads = 0
        var states = Set<Int>()
        var torn: [String] = []
        var last = 0
        let deadline = ContinuousClock.now + .seconds(600)
        while last < total, ContinuousClock.now < deadline {
            let (value, marks) = try await replica.read { context in
                (try counter("torn", in: context), try Mark.count(matching: #Predicate { $0.phase == "torn" }, in: context))
            }
            reads += 1
            states.insert(value)
            if marks != value * 3 { torn.append("counter \(value), marks \(marks)") }
            last = value
            try await Task.sleep(for: .milliseconds(5))
        }
        return (reads, states.count, torn, last)
    }
    var restartedAt = 0
    try await commit(total, phase: "torn", marksPerCommit: 3, on: primary) { number, _ in
        if number == total / 2 {
            // The primary's replicator dies mid-stream and comes back.
            replicator.kill()
            try await Task.sleep(for: .seconds(2))
            try replicator.start()
            restartedAt = number
        }
    }
    let result = try await reader.value
    report(
        "torn reads, sync interval \(options.syncInterval): \(total) commits (the counter and 3 rows each), litestream SIGKILLed and restarted after commit \(restartedAt); \(result.reads) replica reads saw \(result.states) distinct states, \(result.torn.count) torn\(result.torn.isEmpty ? "" : " (\(result.torn.prefix(3)))"); the replica reached commit \(result.last) of \(total)")
    if !result.torn.isEmpty || result.last != total { exit(1) }
}
try replica.close()
try primary.close()
