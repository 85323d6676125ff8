import Foundation
import LiteRecord

// A store per tenant under load, against one co-mingled store (see Package.swift).

struct Options {
    var tenants = 10_000
    var rows = 100
    var maxOpen = 64
    var tasks = 8
    var seconds = 60.0
    var writeShare = 0.2

    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let flag = iterator.next() {
            let value = iterator.next() ?? ""
            switch flag {
            case "--tenants": tenants = Int(value) ?? tenants
            case "--rows": rows = Int(value) ?? rows
            case "--max-open": maxOpen = Int(value) ?? maxOpen
            case "--tasks": tasks = Int(value) ?? tasks
            case "--seconds": seconds = Double(value) ?? seconds
            case "--write-share": writeShare = Double(value) ?? writeShare
            default: fatalError("unknown option \(flag)")
            }
        }
    }
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("literecord-bench-tenants-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
func name(_ index: Int) -> String { "t\(index)" }

/// What one design's run measured.
struct Outcome: Sendable {
    var operations = 0
    var cold = Latencies()
    var warm = Latencies()
    var peakDescriptors = 0
}

/// Runs `operation` from `options.tasks` tasks for `options.seconds`; each
/// call gets a tenant index drawn from the Zipf distribution and whether it
/// writes, and returns whether the tenant had to be opened.
func load(_ operation: @escaping @Sendable (Int, Bool) async throws -> Bool) async throws -> Outcome {
    let zipf = Zipf(count: options.tenants)
    let deadline = ContinuousClock.now + .seconds(options.seconds)
    let sampler = Task {
        var peak = 0
        while !Task.isCancelled {
            peak = max(peak, ProcessFigures.descriptors())
            try? await Task.sleep(for: .milliseconds(100))
        }
        return peak
    }
    var outcome = try await withThrowingTaskGroup(of: Outcome.self) { group in
        for task in 0..<options.tasks {
            group.addTask {
                var random = SplitMix(state: UInt64(task) &* 7919 &+ 1)
                var outcome = Outcome()
                while ContinuousClock.now < deadline {
                    let tenant = zipf.next(&random)
                    let writes = Double(random.next() >> 11) / Double(1 << 53) < options.writeShare
                    let start = ContinuousClock.now
                    let opened = try await operation(tenant, writes)
                    let elapsed = seconds(since: start)
                    if opened { outcome.cold.add(elapsed) } else { outcome.warm.add(elapsed) }
                    outcome.operations += 1
                }
                return outcome
            }
        }
        var total = Outcome()
        for try await part in group {
            total.operations += part.operations
            total.cold.add(part.cold)
            total.warm.add(part.warm)
        }
        return total
    }
    sampler.cancel()
    outcome.peakDescriptors = await sampler.value
    return outcome
}

func report(_ title: String, _ outcome: Outcome) {
    print("\(title):")
    print("  operations/s:        \(Int(Double(outcome.operations) / options.seconds))")
    print("  cold tenant:         \(outcome.cold.summary)")
    print("  open tenant:         \(outcome.warm.summary)")
    print("  opens/s:             \(Int(Double(outcome.cold.values.count) / options.seconds))")
    print("  peak descriptors:    \(outcome.peakDescriptors)")
    print("  peak resident (KiB): \(ProcessFigures.residentKilobytes("VmHWM:"))")
}

print("tenants \(options.tenants) × \(options.rows) rows, maxOpen \(options.maxOpen), \(options.tasks) tasks, \(options.seconds) s, \(Int(options.writeShare * 100)) % writes, Zipf(1.0) choice")

// Setup: every tenant with its rows.
let setupStart = ContinuousClock.now
do {
    let tenants = try RecordStacks(directory: folder.appendingPathComponent("tenants"), entities: [Note.self], maxOpen: options.maxOpen)
    for index in 0..<options.tenants {
        try tenants.create(name(index))
        try await tenants.withStack(for: name(index)) { stack in
            try await stack.write { context in
                for row in 0..<options.rows {
                    let note = Note()
                    note.title = "note \(row)"
                    note.stars = row % 5
                    context.insert(note)
                }
            }
        }
    }
    tenants.close()
}
print("setup: \(options.tenants) tenant stores in \(String(format: "%.1f", seconds(since: setupStart))) s")

// Memory per open stack: maxOpen tenants opened and read once each.
let perStack: Int
do {
    let tenants = try RecordStacks(directory: folder.appendingPathComponent("tenants"), entities: [Note.self], maxOpen: options.maxOpen)
    let before = ProcessFigures.residentKilobytes()
    for index in 0..<min(options.maxOpen, options.tenants) {
        _ = try await tenants.withStack(for: name(index)) { stack in
            try await stack.read { context in try context.fetch(FetchRequest<Note>(fetchLimit: 10)).count }
        }
    }
    perStack = (ProcessFigures.residentKilobytes() - before) / max(1, min(options.maxOpen, options.tenants))
    tenants.close()
}
print("memory per open stack: \(perStack) KiB (resident, after one read each)")

// The tenants design.
do {
    let tenants = try RecordStacks(directory: folder.appendingPathComponent("tenants"), entities: [Note.self], maxOpen: options.maxOpen)
    let mirror = OpenMirror(capacity: options.maxOpen)
    let outcome = try await load { tenant, writes in
        let wasOpen = mirror.use(tenant)
        try await tenants.withStack(for: name(tenant)) { stack in
            if writes {
                try await stack.write { context in
                    let note = Note()
                    note.title = "new"
                    context.insert(note)
                }
            } else {
                _ = try await stack.read { context in try context.fetch(FetchRequest<Note>(fetchLimit: 10)).count }
            }
        }
        return !wasOpen
    }
    tenants.close()
    report("a store per tenant (RecordStacks, maxOpen \(options.maxOpen); cold = not among the \(options.maxOpen) most recently used)", outcome)
}

// The co-mingled design: one store, a tenant column.
do {
    let url = folder.appendingPathComponent("all.sqlite")
    let stack = try RecordStack(storeAt: url, entities: [Note.self])
    for start in stride(from: 0, to: options.tenants, by: 1_000) {
        try await stack.write { context in
            for index in start..<min(start + 1_000, options.tenants) {
                for row in 0..<options.rows {
                    let note = Note()
                    note.tenant = name(index)
                    note.title = "note \(row)"
                    note.stars = row % 5
                    context.insert(note)
                }
            }
        }
    }
    let outcome = try await load { tenant, writes in
        let owner = name(tenant)
        if writes {
            try await stack.write { context in
                let note = Note()
                note.tenant = owner
                note.title = "new"
                context.insert(note)
            }
        } else {
            _ = try await stack.read { context in
                try context.fetch(FetchRequest<Note>(predicate: #Predicate { $0.tenant == owner }, fetchLimit: 10)).count
            }
        }
        return false
    }
    try stack.close()
    report("one store with a tenant column (co-mingled)", outcome)
}
