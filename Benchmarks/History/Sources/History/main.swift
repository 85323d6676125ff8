import Foundation
import HistorySQLite
import LiteRecord

// What persistent history costs, and what updateAll saves.
// Usage: History [N] [runs] [only], `only` one of insert, update, delete, kept,
// small, size, updateall: that part alone (for a profiler).

let arguments = Array(CommandLine.arguments.dropFirst())
let count = arguments.first.flatMap(Int.init) ?? 100_000
let runs = arguments.dropFirst().first.flatMap(Int.init) ?? 5
let only = arguments.dropFirst(2).first
let smallSaves = 1_000
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("literecord-bench-history-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

func freshStore() -> URL { folder.appendingPathComponent("\(UUID().uuidString).sqlite") }

func removeStore(_ url: URL) {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
}

func open(_ url: URL, history: Bool) throws -> RecordStack {
    try RecordStack(storeAt: url, entities: [Item.self, KeptItem.self], history: history ? .enabled : .disabled)
}

/// Seconds `body` takes.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

/// A store with `count` items (kept or plain) saved, and the stack opened on it.
func seeded(history: Bool, kept: Bool = false) throws -> (URL, RecordStack) {
    let url = freshStore()
    let stack = try open(url, history: history)
    let context = stack.newContext()
    for index in 0..<count {
        if kept {
            let item = KeptItem()
            fill(item, index)
            context.insert(item)
        } else {
            let item = Item()
            fill(item, index)
            context.insert(item)
        }
    }
    try context.save()
    return (url, stack)
}

// MARK: The workloads, each timed around the save as `make bench` times them

func insert(history: Bool) throws -> Double {
    let url = freshStore()
    defer { removeStore(url) }
    let stack = try open(url, history: history)
    let context = stack.newContext()
    let items = (0..<count).map { index -> Item in
        let item = Item()
        fill(item, index)
        return item
    }
    let time = try seconds {
        for item in items { context.insert(item) }
        try context.save()
    }
    try stack.close()
    return time
}

func update(history: Bool) throws -> Double {
    let (url, stack) = try seeded(history: history)
    defer { removeStore(url) }
    let context = stack.newContext()
    let items = try Item.findAll(in: context)
    let time = try seconds {
        for item in items { item.score = item.score * 1.5 + 1 }
        try context.save()
    }
    try stack.close()
    return time
}

func delete(history: Bool, kept: Bool = false) throws -> Double {
    let (url, stack) = try seeded(history: history, kept: kept)
    defer { removeStore(url) }
    let context = stack.newContext()
    let time: Double
    if kept {
        let items = try KeptItem.findAll(in: context)
        time = try seconds {
            for item in items { try item.delete(in: context) }
            try context.save()
        }
    } else {
        let items = try Item.findAll(in: context)
        time = try seconds {
            for item in items { try item.delete(in: context) }
            try context.save()
        }
    }
    try stack.close()
    return time
}

/// `smallSaves` saves of one new object each: the cost per transaction.
func smallSaveRun(history: Bool) throws -> Double {
    let url = freshStore()
    defer { removeStore(url) }
    let stack = try open(url, history: history)
    let context = stack.newContext()
    let time = try seconds {
        for index in 0..<smallSaves {
            let item = Item()
            fill(item, index)
            context.insert(item)
            try context.save()
        }
    }
    try stack.close()
    return time
}

// MARK: Size

/// The history's bytes per change for each kind, from the store's own report.
func sizes() throws -> [(String, Double, Int64)] {
    let url = freshStore()
    defer { removeStore(url) }
    let stack = try open(url, history: true)
    var result: [(String, Double, Int64)] = []
    var before: Int64 = 0
    func record(_ name: String, _ changes: Int) throws {
        let bytes = try StoreInspection(storeAt: url).history?.changeBytes ?? 0
        result.append((name, Double(bytes - before) / Double(changes), bytes - before))
        before = bytes
    }
    let context = stack.newContext()
    for index in 0..<count {
        let item = KeptItem()
        fill(item, index)
        context.insert(item)
    }
    try context.save()
    try record("insert", count)
    let items = try KeptItem.findAll(in: context)
    for item in items { item.score += 1 }
    try context.save()
    try record("update (one attribute)", count)
    for item in items { try item.delete(in: context) }
    try context.save()
    try record("delete (a 36-character tombstone)", count)
    try stack.close()
    return result
}

// MARK: updateAll

func updateAllRun() throws -> Double {
    let (url, stack) = try seeded(history: false)
    defer { removeStore(url) }
    let context = stack.newContext()
    let time = try seconds {
        let changed = try Item.updateAll(matching: #Predicate<Item> { $0.age >= 0 }, set: \.score, to: -1.5, in: context)
        precondition(changed == count)
    }
    try stack.close()
    return time
}

func loadAndEditRun() throws -> Double {
    let (url, stack) = try seeded(history: false)
    defer { removeStore(url) }
    let context = stack.newContext()
    let time = try seconds {
        let items = try Item.findAll(matching: #Predicate<Item> { $0.age >= 0 }, in: context)
        for item in items { item.score = -1.5 }
        try context.save()
        precondition(items.count == count)
    }
    try stack.close()
    return time
}

/// Raw C's `UPDATE` on a fresh connection: `sql` stepped to its end (its
/// `RETURNING` rows read), in its own transaction, like updateAll's.
func rawUpdateRun(_ sql: String) throws -> Double {
    let (url, stack) = try seeded(history: false)
    try stack.close()
    defer { removeStore(url) }
    var handle: OpaquePointer?
    guard sqlite3_open(url.path, &handle) == SQLITE_OK, let handle else { fatalError("cannot open \(url.path)") }
    defer { sqlite3_close(handle) }
    sqlite3_exec(handle, "PRAGMA synchronous = NORMAL", nil, nil, nil)
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else { fatalError(String(cString: sqlite3_errmsg(handle))) }
    defer { sqlite3_finalize(statement) }
    let time = seconds {
        sqlite3_exec(handle, "BEGIN IMMEDIATE", nil, nil, nil)
        var rows: [Int64] = []
        var result = sqlite3_step(statement)
        while result == SQLITE_ROW {
            rows.append(sqlite3_column_int64(statement, 0))
            result = sqlite3_step(statement)
        }
        precondition(result == SQLITE_DONE && sqlite3_changes(handle) == Int32(count))
        sqlite3_exec(handle, "COMMIT", nil, nil, nil)
    }
    return time
}

// MARK: Run

func measure(_ body: () throws -> Double) throws -> Double {
    _ = try body()  // warm-up
    return median(try (0..<runs).map { _ in try body() })
}

print("history benchmark: N = \(count), median of \(runs) runs after a warm-up, \(smallSaves) small saves")
print("")
print("| workload | history off | history on | on / off |")
print("| --- | --: | --: | --: |")
let workloads: [(String, String, (Bool) throws -> Double)] = [
    ("insert", "insert (\(count) rows, one save)", insert),
    ("update", "update (\(count) rows, one attribute, one save)", update),
    ("delete", "delete (\(count) rows, one save)", { try delete(history: $0) }),
    ("kept", "delete with a preserved attribute", { try delete(history: $0, kept: true) }),
    ("small", "\(smallSaves) saves of one row", smallSaveRun),
]
for (key, name, run) in workloads where only == nil || only == key {
    let off = try measure { try run(false) }
    let on = try measure { try run(true) }
    print("| \(name) | \(String(format: "%.1f ms", off * 1000)) | \(String(format: "%.1f ms", on * 1000)) | \(String(format: "%.2f×", on / off)) |")
}
if only == nil || only == "size" {
    print("")
    print("| history kept per change | bytes per change | bytes for \(count) |")
    print("| --- | --: | --: |")
    for (name, perChange, total) in try sizes() {
        print("| \(name) | \(String(format: "%.2f", perChange)) | \(total) |")
    }
}
if only == nil || only == "updateall" {
    print("")
    let updateAll = try measure(updateAllRun)
    let loadAndEdit = try measure(loadAndEditRun)
    let raw = try measure { try rawUpdateRun("UPDATE Item SET score = -1.5 WHERE age >= 0") }
    let rawSame = try measure {
        try rawUpdateRun(#"UPDATE "Item" SET "score" = -1.5, "Z_OPT" = "Z_OPT" + 1 WHERE ("age" >= 0) AND ("score" IS NOT -1.5) RETURNING "Z_PK""#)
    }
    print("| set-based update of \(count) rows, one attribute | time | vs updateAll |")
    print("| --- | --: | --: |")
    print("| `Item.updateAll(matching:set:to:in:)` | \(String(format: "%.1f ms", updateAll * 1000)) | 1.00× |")
    print("| `findAll(matching:)`, set each, `save()` | \(String(format: "%.1f ms", loadAndEdit * 1000)) | \(String(format: "%.2f×", loadAndEdit / updateAll)) |")
    print("| raw C `UPDATE … WHERE` | \(String(format: "%.1f ms", raw * 1000)) | \(String(format: "%.2f×", raw / updateAll)) |")
    print("| raw C, updateAll's statement (version bump, `RETURNING`) | \(String(format: "%.1f ms", rawSame * 1000)) | \(String(format: "%.2f×", rawSame / updateAll)) |")
    print("")
    print("updateAll is \(String(format: "%.1f", loadAndEdit / updateAll))× faster than loading and editing, \(String(format: "%.2f", updateAll / raw))× raw C's UPDATE, \(String(format: "%.2f", updateAll / rawSame))× raw C running its statement")
}
