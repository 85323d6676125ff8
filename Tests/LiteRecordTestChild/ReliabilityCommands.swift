import ArgumentParser
import Foundation
import LiteRecord

/// Numbered saves, each a batch of notes plus the `counter` note set to the
/// save's number, printing `acked N` once save N has returned. The
/// crash-safety, history and replication tests SIGKILL it at random moments
/// and check the store.
struct CrashWriter: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crash-writer",
        abstract: "Numbered batch saves until killed (used by LiteRecord's reliability tests).")

    @Argument var path: String
    @Option var batch = 50
    @Option var saves = Int.max
    /// Opens the store with `checkpoints: .leftToReplicator`, as an app whose
    /// store Litestream replicates does (the replication tests).
    @Flag var leftToReplicator = false
    /// Also runs a loop of reads (counting the notes) beside the saves.
    @Flag var reader = false

    func run() async throws {
        let stack = try RecordStack(
            storeAt: URL(fileURLWithPath: path), entities: [Note.self], migration: .none, onModelMismatch: .fail,
            checkpoints: leftToReplicator ? .leftToReplicator : .automatic)
        let reads: Task<Void, any Error>? =
            reader
            ? Task.detached {
                while !Task.isCancelled {
                    _ = try await stack.read { context in try Note.count(in: context) }
                }
            } : nil
        defer { reads?.cancel() }
        let start = try await stack.read { context in
            try Note.findFirst(byAttribute: "title", withValue: "counter", in: context)?.stars ?? 0
        }
        var number = start
        while number < saves {
            number += 1
            let save = number
            let batch = self.batch
            try await stack.write { context in
                for index in 0..<batch {
                    context.insert(Note(title: "save-\(save)-\(index)", stars: save))
                }
                if let counter = try Note.findFirst(byAttribute: "title", withValue: "counter", in: context) {
                    counter.stars = save
                } else {
                    context.insert(Note(title: "counter", stars: save))
                }
            }
            // Unbuffered: a line the parent reads is a save that returned.
            FileHandle.standardOutput.write(Data("acked \(save)\n".utf8))
        }
        try stack.close()
    }
}

/// Opens, saves to and closes a store many times, printing the open file
/// descriptors and resident memory after a warm-up and at the end. The
/// lifecycle test runs it in a process of its own, where no other test's
/// files or memory blur the figures.
struct Lifecycle: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lifecycle",
        abstract: "Open/save/close cycles with descriptor and memory figures (used by LiteRecord's reliability tests).")

    @Argument var path: String
    @Option var cycles = 1000
    @Option var warmup = 100

    func run() throws {
        let url = URL(fileURLWithPath: path)
        var first: (fds: Int, rss: Int)?
        let clock = ContinuousClock()
        let start = clock.now
        for cycle in 1...max(cycles, 1) {
            let stack = try RecordStack(storeAt: url, entities: [Note.self])
            let context = stack.newContext()
            context.insert(Note(title: "cycle-\(cycle)", stars: cycle))
            try context.save()
            _ = try Note.count(in: stack.newContext())
            try stack.close()
            if cycle == warmup { first = (Self.openDescriptors(), Self.residentKilobytes()) }
        }
        let elapsed = clock.now - start
        let last = (fds: Self.openDescriptors(), rss: Self.residentKilobytes())
        let warm = first ?? last
        print("cycles \(cycles) warmup \(warmup)")
        print("fds \(warm.fds) \(last.fds)")
        print("rss_kb \(warm.rss) \(last.rss)")
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        print("ms_per_cycle \(milliseconds / Double(max(cycles, 1)))")
        let reader = try RecordStack(storeAt: url, entities: [Note.self], readOnly: true)
        print("rows \(try Note.count(in: reader.newContext()))")
        try reader.close()
    }

    /// The process's open file descriptors; -1 where `/proc` does not say (not Linux).
    static func openDescriptors() -> Int {
        #if os(Linux)
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
        #else
        -1
        #endif
    }

    /// The process's resident memory in KiB; -1 where `/proc` does not say (not Linux).
    static func residentKilobytes() -> Int {
        #if os(Linux)
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
        }
        #endif
        return -1
    }
}

/// Saves that insert, edit and delete searchable notes until killed. The
/// search crash test SIGKILLs it at random moments, then checks that the
/// full-text index matches the table.
struct SearchWriter: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search-writer",
        abstract: "Searchable saves until killed (used by LiteRecord's search tests).")

    @Argument var path: String
    @Option var saves = Int.max

    func run() async throws {
        let stack = try RecordStack(storeAt: URL(fileURLWithPath: path), entities: [SearchNote.self])
        var number = try await stack.read { context in
            try SearchNote.findAll(sortedBy: [SortDescriptor(\.save, order: .reverse)], in: context).first?.save ?? 0
        }
        while number < saves {
            number += 1
            let save = number
            try await stack.write { context in
                for index in 0..<40 {
                    context.insert(
                        SearchNote(
                            text: "crash save\(save) item\(index) " + String(repeating: "word\(index % 7) ", count: 20),
                            tags: index.isMultiple(of: 3) ? nil : "tag\(index % 5)", save: save))
                }
                // Edit and delete some of the previous save's notes.
                for note in try SearchNote.findAll(matching: #Predicate { $0.save == save - 1 }, in: context) {
                    switch note.text.count % 3 {
                    case 0: context.delete(note)
                    case 1: note.text = "crash edited in save\(save)"
                    default: note.tags = "retagged"
                    }
                }
            }
            FileHandle.standardOutput.write(Data("acked \(save)\n".utf8))
        }
        try stack.close()
    }
}

/// Four readers looping over `read` beside one writer for a while, printing
/// the largest `-wal` file seen: the measurement behind the WAL bound
/// (Docs/Reliability.md), run by hand before and after a change to it.
struct WALGrowth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wal-growth",
        abstract: "Measure the largest -wal under 4 looping readers and 1 writer (used to measure LiteRecord's WAL bound).")

    @Argument var path: String
    @Option var seconds = 180
    @Option var readers = 4
    @Option var batch = 20

    func run() async throws {
        let stack = try RecordStack(storeAt: URL(fileURLWithPath: path), entities: [Note.self])
        let deadline = ContinuousClock.now + .seconds(seconds)
        let walPath = path + "-wal"
        let largest = Largest()
        let sampler = Task.detached {
            while ContinuousClock.now < deadline {
                let size = ((try? FileManager.default.attributesOfItem(atPath: walPath))?[.size] as? NSNumber)?.int64Value ?? 0
                largest.note(size)
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        let readTasks = (0..<readers).map { _ in
            Task.detached {
                var reads = 0
                while ContinuousClock.now < deadline {
                    _ = try await stack.read { context in try Note.count(in: context) }
                    reads += 1
                }
                return reads
            }
        }
        var writes = 0
        let batch = self.batch
        while ContinuousClock.now < deadline {
            let number = writes
            try await stack.write { context in
                for index in 0..<batch { context.insert(Note(title: "w\(number)-\(index)", body: String(repeating: "x", count: 200))) }
            }
            writes += 1
        }
        var reads = 0
        for task in readTasks { reads += try await task.value }
        await sampler.value
        try stack.close()
        print("writes \(writes), reads \(reads), largest WAL \(largest.value) bytes")
    }
}

/// The largest value noted, from any thread.
final class Largest: @unchecked Sendable {
    // @unchecked: `stored` is only touched with `lock` held.
    private let lock = NSLock()
    private var stored: Int64 = 0
    func note(_ value: Int64) { lock.withLock { stored = max(stored, value) } }
    var value: Int64 { lock.withLock { stored } }
}
