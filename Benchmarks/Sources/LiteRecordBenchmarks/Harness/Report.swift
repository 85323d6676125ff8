import Foundation
import FluentSQLiteDriver
import GRDB

/// The machine a run happened on.
struct MachineInfo: Codable, Sendable {
    var date: String
    var cpu: String
    var cores: Int
    var memoryGiB: Double
    var os: String
    var swift: String
    var sqlite: String
    var fluentSQLite: String
    var loadAverageBefore: String
    var loadAverageAfter: String
    /// The commit measured (``Machine/commit``).
    var commit: String
    /// What was run: `make bench`, or the executable with its arguments.
    var command: String

    static func current(loadBefore: String, command: String) -> MachineInfo {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        let grdbSQLite = (try? DatabaseQueue().read { try String.fetchOne($0, sql: "SELECT sqlite_version()") }) ?? nil
        return MachineInfo(
            date: formatter.string(from: Date()), cpu: Machine.cpuModel, cores: ProcessInfo.processInfo.activeProcessorCount,
            memoryGiB: (Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824 * 10).rounded() / 10,
            os: Machine.operatingSystem, swift: Machine.swiftVersion,
            sqlite: RawDatabase.libraryVersion + (grdbSQLite.map { $0 == RawDatabase.libraryVersion ? "" : " (GRDB: \($0))" } ?? ""),
            fluentSQLite: SQLiteConnection.libraryVersionString(),
            loadAverageBefore: loadBefore, loadAverageAfter: Machine.loadAverage, commit: Machine.commit, command: command)
    }
}

/// The LiteRecord targets of the benchmark issue.
struct Target {
    enum Kind {
        case ratio(Double)
        case fasterThanGRDBRecords
        case peakResidentBelow(megabytes: Double)
        case medianBelow(milliseconds: Double)
        /// LiteRecord's median per row over raw C's.
        case ratioToRawC(Double)
        /// LiteRecord's peak RSS over raw C's.
        case peakResidentRatioToRawC(Double)
        /// LiteRecord's per-row cost at every size of the scaling section
        /// within this factor of each other, per workload.
        case scalingWithin(Double)
        /// LiteRecord at least GRDB's `DatabasePool` on reads/s and writes/s.
        case concurrentAtLeastGRDB
    }

    let workload: Workload?
    let kind: Kind

    /// The wall-clock targets (the instruction targets are in
    /// `scripts/instructions.py`), with the earlier targets still standing.
    static let all: [Target] = [
        Target(workload: .insert, kind: .ratio(1.5)),
        Target(workload: .insertBuilt, kind: .ratioToRawC(1.1)),
        Target(workload: .fetch, kind: .ratioToRawC(1.2)),
        Target(workload: .fetch, kind: .peakResidentRatioToRawC(1.25)),
        Target(workload: .memoryPlain, kind: .peakResidentRatioToRawC(1.12)),
        Target(workload: .memoryUser, kind: .peakResidentRatioToRawC(1.12)),
        Target(workload: .query, kind: .ratioToRawC(1.05)),
        Target(workload: .update, kind: .ratioToRawC(1.2)),
        Target(workload: .delete, kind: .ratioToRawC(1.1)),
        Target(workload: nil, kind: .fasterThanGRDBRecords),
        Target(workload: .enumerate, kind: .peakResidentBelow(megabytes: 64)),
        Target(workload: .open, kind: .medianBelow(milliseconds: 10)),
        Target(workload: .launch, kind: .ratioToRawC(1.2)),
        Target(workload: .relFetch, kind: .ratioToRawC(1.5)),
        Target(workload: .relWalk, kind: .ratioToRawC(1.6)),
        Target(workload: .relCascade, kind: .ratioToRawC(1.3)),
        Target(workload: nil, kind: .scalingWithin(1.5)),
        Target(workload: .concurrent, kind: .concurrentAtLeastGRDB),
    ]

    /// Workloads where beating GRDB records is not a target: `concurrent`
    /// and `memory`, whose time is not the point (they have their own
    /// targets and sections). The cascade is compared: its target is
    /// below GRDB's, which is SQLite's own `ON DELETE CASCADE`.
    static let notComparedWithGRDBRecords: Set<Workload> = [.concurrent, .memory, .memoryPlain, .memoryUser]
}

/// Turns the cells of a run into `Docs/Performance.md` and `results.json`.
struct Report {
    let cells: [Cell]
    /// The scaling section: `Workload.scaling` × `Engines.scalingNames` × sizes.
    let scaling: [Cell]
    let options: Options
    let machine: MachineInfo
    let wallSeconds: Double

    /// `Benchmarks/`: the folder of this package.
    static var packageDirectory: URL {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        if FileManager.default.fileExists(atPath: cwd.appendingPathComponent("Sources/LiteRecordBenchmarks").path) {
            return cwd
        }
        // …/Benchmarks/Sources/LiteRecordBenchmarks/Harness/Report.swift
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    private func cell(_ engine: String, _ workload: Workload) -> Cell? {
        cells.first { $0.engine == engine && $0.workload == workload.rawValue }
    }

    // MARK: Markdown

    func markdownTables() -> String {
        var lines = [
            "| workload | engine | rows | median ms | × best low-level | statements | peak RSS MB | runs ms | checksum |",
            "|---|---|--:|--:|--:|--:|--:|---|---|",
        ]
        for cell in cells {
            let reduced = cells.contains { $0.workload == cell.workload && $0.rows > cell.rows }
            let ratio = (cell.ratioToBestLowLevel.map { String(format: "%.2f", $0) } ?? "–") + (reduced ? " per row" : "")
            let runs = cell.runsMilliseconds.map(format).joined(separator: ", ")
            let checksum = cell.checksumAgrees ? "ok `\(cell.checksum)`" : "**MISMATCH** `\(cell.checksum)` ≠ `\(cell.expectedChecksum)`"
            lines.append(
                "| \(cell.workload) | \(cell.engine) | \(cell.rows.formatted()) | \(format(cell.medianMilliseconds)) | \(ratio) | "
                    + "\(cell.statements.map { $0.formatted() } ?? "–") | "
                    + "\(String(format: "%.1f", cell.peakResidentMiB)) | \(runs) | \(checksum) |")
        }
        lines += ["", "LiteRecord against the targets:", "", "| target | measured | met |", "|---|---|---|"]
        lines += targetRows()
        return lines.joined(separator: "\n")
    }

    /// Nanoseconds per row of a cell.
    private func nanosecondsPerRow(_ cell: Cell) -> Double {
        cell.medianMilliseconds * 1_000_000 / Double(max(cell.rows, 1))
    }

    /// The scaling cells of one engine and workload, by size.
    private func scalingSeries(_ engine: String, _ workload: Workload) -> [Cell] {
        scaling.filter { $0.engine == engine && $0.workload == workload.rawValue }.sorted { $0.rows < $1.rows }
    }

    /// The largest over the smallest per-row cost across the sizes.
    private func spread(_ series: [Cell]) -> Double? {
        let costs = series.map(nanosecondsPerRow)
        guard let low = costs.min(), let high = costs.max(), low > 0, costs.count > 1 else { return nil }
        return high / low
    }

    private var scalingCounts: [Int] { Array(Set(scaling.map(\.rows))).sorted() }

    func scalingTable() -> String {
        let counts = scalingCounts
        guard !counts.isEmpty else { return "(not measured in this run)" }
        var lines = [
            "| workload | engine | " + counts.map { "ns/row at \($0.formatted())" }.joined(separator: " | ") + " | max/min | runs at each size |",
            "|---|---|" + counts.map { _ in "--:|" }.joined() + "--:|---|",
        ]
        for workload in Workload.scaling {
            for engine in Engines.scalingNames {
                let series = scalingSeries(engine, workload)
                guard !series.isEmpty else { continue }
                let byCount = Dictionary(uniqueKeysWithValues: series.map { ($0.rows, $0) })
                let costs = counts.map { count in byCount[count].map { String(format: "%.0f", nanosecondsPerRow($0)) } ?? "–" }
                let checks = series.allSatisfy(\.checksumAgrees) ? "" : " **MISMATCH**"
                lines.append(
                    "| \(workload.rawValue) | \(engine) | " + costs.joined(separator: " | ")
                        + " | \(spread(series).map { String(format: "%.2f", $0) } ?? "–")\(checks) | "
                        + series.map { "\($0.runsMilliseconds.count)" }.joined(separator: "/") + " |")
            }
        }
        return lines.joined(separator: "\n")
    }

    func concurrentTable() -> String {
        let measured = cells.filter { $0.workload == Workload.concurrent.rawValue }
        guard !measured.isEmpty else { return "(not measured in this run)" }
        var lines = ["| engine | reads/s (4 readers) | rows written/s (1 writer) | peak RSS MB | checks |", "|---|--:|--:|--:|---|"]
        for cell in measured {
            let reads = cell.metrics?[Metric.readsPerSecond] ?? 0
            let writes = cell.metrics?[Metric.writesPerSecond] ?? 0
            lines.append(
                "| \(cell.engine == "grdb-records" ? "grdb-records (`DatabasePool`)" : cell.engine) | \(String(format: "%.0f", reads)) | "
                    + "\(String(format: "%.0f", writes)) | \(String(format: "%.1f", cell.peakResidentMiB)) | "
                    + "\(cell.checksumAgrees ? "ok" : "**failed**") (\(cell.runsMilliseconds.count) runs) |")
        }
        return lines.joined(separator: "\n")
    }

    /// Peak-RSS bytes per fetched object over raw C's, from the fetch cells.
    private var residentBytesPerObject: Double? {
        guard let mine = cell("literecord", .fetch), let raw = cell("raw-c", .fetch), mine.rows > 0 else { return nil }
        return (mine.peakResidentMiB - raw.peakResidentMiB) * 1_048_576 / Double(mine.rows)
    }

    func memoryTable() -> String {
        let workloads: [Workload] = [.memory, .memoryPlain, .memoryUser]
        let mine = workloads.map { cell("literecord", $0) }
        guard mine.contains(where: { $0?.metrics != nil }) else { return "(not measured in this run)" }
        let rows = mine.lazy.compactMap { $0?.rows }.first ?? 0
        func bytes(_ cell: Cell?, _ key: String) -> String {
            cell?.metrics?[key].map { String(format: "%.0f", $0) } ?? "–"
        }
        func line(_ label: String, _ key: String) -> String {
            "| \(label) | " + mine.map { bytes($0, key) }.joined(separator: " | ") + " |"
        }
        func peak(_ workload: Workload) -> String {
            guard let mine = cell("literecord", workload), let theirs = cell("raw-c", workload) else { return "–" }
            return String(format: "%.1f vs %.1f MB (%.2f×)", mine.peakResidentMiB, theirs.peakResidentMiB, mine.peakResidentMiB / theirs.peakResidentMiB)
        }
        let raw = workloads.map { bytes(cell("raw-c", $0), Metric.heapPerObject) }.joined(separator: " | ")
        var lines = [
            "| per fetched object (N = \(rows.formatted())) | observable context (`memory`) | plain context (`memory-plain`) | user-shaped entity, plain context (`memory-user`) |",
            "|---|--:|--:|--:|",
            "| peak RSS of `fetch` over raw C's, per object | \(residentBytesPerObject.map { String(format: "%.0f", $0) } ?? "–") | – | – |",
            "| peak RSS of the child, LiteRecord vs raw C | " + workloads.map(peak).joined(separator: " | ") + " |",
            line("LiteRecord heap (`mallinfo2`) after `findAll` and a read of every property, per object", Metric.heapPerObject),
            "| raw C heap after its fetch, per row (struct in an array + uuid, name, email strings) | \(raw) |",
            line("LiteRecord: the object (header + stored properties, its `RecordState` among them; its malloc block)", Metric.objectBlock),
            line("LiteRecord: its text values (name, email; `memory-user`: uuid too; heap strings as any engine has)", Metric.textValues),
            line("LiteRecord: held by the context (identity map + snapshots; freed when the context goes)", Metric.contextPerObject),
            line("LiteRecord: its slot in the result array", Metric.resultArray),
            line("LiteRecord: rest (allocations not listed above: observation groups, SQLite's page cache filling during the scan)", Metric.rest),
        ]
        if mine.contains(where: { $0.map { !$0.checksumAgrees } ?? false }) {
            lines.append("| checksum | **MISMATCH** | | |")
        }
        return lines.joined(separator: "\n")
    }

    private func targetRows() -> [String] {
        Target.all.compactMap { target -> String? in
            switch target.kind {
            case .ratio(let limit):
                guard let workload = target.workload, let cell = cell("literecord", workload), let ratio = cell.ratioToBestLowLevel
                else { return nil }
                return "| \(workload.rawValue) ≤ \(limit)× best low-level | \(String(format: "%.2f", ratio))× | \(ratio <= limit ? "yes" : "**no**") |"
            case .fasterThanGRDBRecords:
                let pairs = Workload.allCases.compactMap { workload -> (Workload, Double, Double)? in
                    guard !Target.notComparedWithGRDBRecords.contains(workload), let mine = cell("literecord", workload), let theirs = cell("grdb-records", workload) else { return nil }
                    return (workload, mine.medianMilliseconds, theirs.medianMilliseconds)
                }
                guard !pairs.isEmpty else { return nil }
                let slower = pairs.filter { $0.1 >= $0.2 }.map { "\($0.0.rawValue) (\(format($0.1)) vs \(format($0.2)) ms)" }
                return "| faster than GRDB records on every workload but rel-cascade | slower on: \(slower.isEmpty ? "none" : slower.joined(separator: ", ")) | \(slower.isEmpty ? "yes" : "**no**") |"
            case .peakResidentBelow(let megabytes):
                guard let workload = target.workload, let cell = cell("literecord", workload) else { return nil }
                return "| \(workload.rawValue) peak RSS < \(Int(megabytes)) MB | \(String(format: "%.1f", cell.peakResidentMiB)) MB | \(cell.peakResidentMiB < megabytes ? "yes" : "**no**") |"
            case .medianBelow(let milliseconds):
                guard let workload = target.workload, let cell = cell("literecord", workload) else { return nil }
                return "| \(workload.rawValue) < \(Int(milliseconds)) ms | \(format(cell.medianMilliseconds)) ms | \(cell.medianMilliseconds < milliseconds ? "yes" : "**no**") |"
            case .ratioToRawC(let limit):
                guard let workload = target.workload, let mine = cell("literecord", workload), let raw = cell("raw-c", workload),
                    raw.medianMilliseconds > 0
                else { return nil }
                let ratio = nanosecondsPerRow(mine) / nanosecondsPerRow(raw)
                let label =
                    switch workload {
                    case .insertBuilt: "insert (objects built in the timed part)"
                    case .launch: "launch (open a 1,000,000-row store, first `findFirst(matching:)`)"
                    default: workload.rawValue
                    }
                return "| \(label) ≤ \(limit)× raw C | \(String(format: "%.2f", ratio))× | \(ratio <= limit ? "yes" : "**no**") |"
            case .peakResidentRatioToRawC(let limit):
                guard let workload = target.workload, let mine = cell("literecord", workload), let raw = cell("raw-c", workload),
                    raw.peakResidentMiB > 0
                else { return nil }
                let ratio = mine.peakResidentMiB / raw.peakResidentMiB
                let label =
                    switch workload {
                    case .memoryPlain: "fetch in a context that is not observable (`memory-plain`)"
                    case .memoryUser: "the same for the entity shape apps write (`memory-user`)"
                    default: workload.rawValue
                    }
                return "| \(label) peak RSS ≤ \(limit)× raw C's | \(String(format: "%.2f", ratio))× (\(String(format: "%.1f", mine.peakResidentMiB)) vs \(String(format: "%.1f", raw.peakResidentMiB)) MB) | \(ratio <= limit ? "yes" : "**no**") |"
            case .scalingWithin(let limit):
                let spreads = Workload.scaling.compactMap { workload in
                    spread(scalingSeries("literecord", workload)).map { (workload, $0) }
                }
                guard !spreads.isEmpty else { return nil }
                let measured = spreads.map { "\($0.0.rawValue) \(String(format: "%.2f", $0.1))×" }.joined(separator: ", ")
                let sizes = scalingCounts.map { $0.formatted() }.joined(separator: ", ")
                return "| per-row cost within \(limit)× across N = \(sizes) (max/min) | \(measured) | \(spreads.allSatisfy { $0.1 <= limit } ? "yes" : "**no**") |"
            case .concurrentAtLeastGRDB:
                guard let theirs = cell("grdb-records", .concurrent)?.metrics,
                    let theirReads = theirs[Metric.readsPerSecond], let theirWrites = theirs[Metric.writesPerSecond]
                else { return nil }
                func line(_ engine: String, _ label: String) -> String? {
                    guard let mine = cell(engine, .concurrent)?.metrics,
                        let myReads = mine[Metric.readsPerSecond], let myWrites = mine[Metric.writesPerSecond]
                    else { return nil }
                    let met = myReads >= theirReads && myWrites >= theirWrites
                    return "| concurrent reads: LiteRecord\(label) ≥ GRDB `DatabasePool` on reads/s and writes/s | reads \(String(format: "%.0f", myReads)) vs \(String(format: "%.0f", theirReads)) /s, rows written \(String(format: "%.0f", myWrites)) vs \(String(format: "%.0f", theirWrites)) /s | \(met ? "yes" : "**no**") |"
                }
                let lines = [line("literecord", " (default settings)"), line("literecord-mmap", " with `memoryMappedReadSize` set")].compactMap { $0 }
                return lines.isEmpty ? nil : lines.joined(separator: "\n")
            }
        }
    }

    func markdown() -> String {
        """
        # Performance

        <!-- The sections from "Method" to "Known limits of this run" are written by `make bench` (Benchmarks/Sources/LiteRecordBenchmarks/Harness/Report.swift) from one run: edit that file, not them. "Instructions" is written by `make bench-instructions` (Benchmarks/scripts/instructions.py). The sections after it are written by hand from the runs they name (command, date, commit); `make bench` keeps them as they are. -->

        LiteRecord promises an object layer — contexts, an identity map, change
        tracking — that costs little more than raw SQLite and clearly less than
        the best Swift record layer. This page is the evidence, measured in one
        run on one machine. Run `make bench` to measure yours.

        ## Method

        - **Harness.** `Benchmarks/` is a separate SwiftPM package (so the
          library never builds GRDB or Fluent), built in release mode. Its
          executable is both the driver and the measured program: for every
          engine × workload the driver copies a prepared store to a fresh file,
          re-launches itself on it in a child process, and collects one JSON
          line — elapsed milliseconds of the timed part, peak resident memory
          (`VmHWM` from `/proc/self/status`, which covers the whole child) and
          a checksum. The file and its `-wal`/`-shm` are deleted afterwards.
        - **Repetitions.** Per workload: one warm-up round, then
          \(options.runs) measured rounds; each round runs every engine once,
          interleaved, so that load spikes on a shared machine spread over all
          engines, and the order turns by one engine each round, so that no
          engine always follows the same one. The table shows the median and
          every run (in round order).
        - **Ratio.** "× best low-level" divides an engine's median by the
          faster of the raw-C and GRDB-raw-rows medians of the same workload in
          the same run.
        - **What is timed.** Only the workload: opening the store, the fetch
          that gives an update or delete its objects, generating the data and
          computing checksums happen before the clock starts or after it stops.
          Every engine reads once before timing so that the schema is parsed
          and connections are open. The open and launch workloads are the
          exception: `open` times opening a store of 10 empty tables and its
          first read (`count` of one table); `launch` times opening a store of
          1,000,000 rows over a model of 10 entities (indexes, a
          relationship, a searchable attribute: the file LiteRecord makes, the
          same for every engine) and its first query, the first row with a
          given `age` by the index (LiteRecord's `findFirst(matching:)`, GRDB
          records' `filter(…).order(…).fetchOne`, raw C's prepared `SELECT`),
          each in a fresh process: what an app pays before its first answer.
          The record engines' insert times inserting and saving objects built
          beforehand, the same for LiteRecord, GRDB records and Fluent;
          `insert-built` times building them too (see below).
        - **Data.** One table, `item(id INTEGER PRIMARY KEY, uuid TEXT NOT NULL,
          name TEXT NOT NULL, age INTEGER NOT NULL, score REAL NOT NULL,
          created REAL NOT NULL, email TEXT NULL)` with an index on `age`, WAL
          and `synchronous = NORMAL` for every engine. Rows come from a seeded
          SplitMix64 generator: uppercase UUID text, unique ASCII names (so
          `ORDER BY name` has no ties), ages 18–99, scores, creation dates as
          seconds since 2001, and an email on 80% of the rows. LiteRecord
          creates its own table from its model (same columns; its key column is
          `Z_PK`, it adds the `Z_OPT` row version that optimistic locking
          checks, and a metadata table).
        - **Checksum.** Row count plus the wrapping sum of an FNV-1a hash of each
          row's values. Read workloads hash what the engine returned; write
          workloads hash what the file holds afterwards, read back with the C
          API. The driver computes the expected checksum from the generator
          alone (for the query workload by filtering, sorting and cutting in
          Swift); every run of every engine must match it, or `make bench` fails.
        - **Engines.** `raw-c`: the C API (libsqlite3) with prepared statements
          reused, bind/step/column by index, rows read into plain structs — the
          physical limit. `grdb-rows`: GRDB \(grdbVersion) cached statements and
          `Row` cursors, columns by index. `grdb-records`: a `Codable` struct
          with `FetchableRecord & PersistableRecord` (`UUID`/`Date` properties
          stored as the same text and reals), saved with `insert`,
          `update(_:columns:)` and `delete`. `fluent`: a `Model` class on
          fluent-sqlite-driver (`String`/`Double` for `uuid`/`created` so the
          file stays identical); bulk insert uses `[Model].create(on:)` in
          batches of 1,000, updates and deletes go model by model in one
          transaction. Fluent needs about half a millisecond per saved model
          here, so the full matrix would not fit the 20 minutes of `make bench`:
          its insert, fetch, update, delete and enumerate runs use a tenth of
          the rows (the `rows` column), and their ratio is per row. Run
          `swift run -c release LiteRecordBenchmarks --engines fluent --full-size`
          in `Benchmarks/` to measure it at full size. Fluent runs on the SQLite that sqlite-nio compiles in
          (\(machine.fluentSQLite), with `SQLITE_SECURE_DELETE`), the others on
          the system's. `literecord`: the public API as a user writes it — a
          `RecordStack`, a context, `insert`/`delete` then one `save()`,
          `findAll`.
        - **Workloads** (N = \(options.count.formatted())): \(Workload.allCases.filter { !$0.isRelationship }.map { "`\($0.rawValue)` — \($0.summary)" }.joined(separator: "; ")).
        - **Relationship workloads** (\(options.authorCount.formatted()) authors × \(Library.booksPerAuthor) books;
          the `rows` column counts authors): \(Workload.relationships.map { "`\($0.rawValue)` — \($0.summary)" }.joined(separator: "; ")).
          Tables `author(id, name, born)` and `book(id, title, year, authorId)`,
          the foreign key indexed and declared `ON DELETE CASCADE`; book *k*
          belongs to author *k* mod \(options.authorCount.formatted()), so an author's
          books are spread over the table. `raw-c` runs one join for
          `rel-fetch`, two queries grouped by author id for `rel-walk`, and
          for `rel-cascade` two prepared `DELETE`s per author (books, then
          the author). `grdb-records` uses GRDB associations:
          `including(required: Book.author)`, `including(all: Author.books)`,
          and `record.delete(db)` per author with SQLite's `ON DELETE
          CASCADE`. `literecord` uses `FetchRequest.relationshipKeyPathsForPrefetching`
          (`[\\.author]`, `[\\.books]`) and reads every book's `author` or
          every author's `books` inside the timed part; for `rel-cascade` it
          fetches the doomed authors, deletes them with `context.delete(_:)`
          and saves once: their books are not loaded, so the `.cascade` rule
          leaves them to the store — one `SELECT` of their row ids and one
          `DELETE … WHERE author IN (…)` for all the authors; the change set
          names every book (`deletedObjects` would read the books first if asked).
          Raw C and GRDB get the doomed authors' ids or records before the
          clock; LiteRecord fetches them inside it. `grdb-rows` and `fluent` do not run these
          workloads. The checksum hashes each book with its author's name and
          birth year (for `rel-cascade`: every author and book left in the
          file, a book whose author is gone reads as a mismatch).
          **Statements** are counted in the warm-up round only — raw C counts
          the statements it runs, GRDB and LiteRecord through SQLite's trace
          hook (`Database.trace`, `RecordStack.recordingSQL`), so the measured
          rounds run untraced; they include `BEGIN`/`COMMIT`.

        ## Machine

        | | |
        |---|---|
        | command | `\(machine.command)` |
        | commit | \(machine.commit) |
        | date | \(machine.date) |
        | CPU | \(machine.cpu), \(machine.cores) cores (`nproc`) |
        | memory | \(machine.memoryGiB) GiB |
        | OS | \(machine.os) |
        | Swift | \(machine.swift) |
        | SQLite | \(machine.sqlite) (raw C, GRDB, LiteRecord); \(machine.fluentSQLite) (Fluent, vendored) |
        | load average (1/5/15 min) | before: \(machine.loadAverageBefore); after: \(machine.loadAverageAfter) |
        | wall time of the measurements | \(String(format: "%.0f", wallSeconds)) s |

        ## Results

        `concurrent`, `memory`, `memory-plain` and `memory-user` are
        described in their own sections below; their time columns are the fixed duration and the
        untimed run. `launch` is described under Method.

        \(markdownTables())

        ## Objects built in the timed part

        `insert-built` is `insert` with each engine building what it inserts
        from the data set's values inside the timed part, as an import written
        by a user would: raw C copies each row into its plain struct (its
        columns are the data set's text and numbers already), GRDB records
        make the `Codable` structs, LiteRecord makes new `@Entity` objects —
        both with `Date(timeIntervalSinceReferenceDate:)` — then
        `context.insert` and one `save()`. The data set's UUIDs are text,
        which raw C binds as it is; the record engines' models hold a `UUID`,
        so they are given the UUIDs parsed before the clock. Timing
        Foundation's `UUID(uuidString:)` (which parses with `sscanf` on Linux,
        about 8,800 instructions a UUID) would measure Foundation, and only
        for the record engines. `grdb-rows` binds the
        values directly, which is its `insert`, so it does not run it; nor does
        Fluent, whose insert (about half a millisecond per model, see
        Engines) the building would not change.
        The target compares LiteRecord with raw C.

        ## Scaling

        Per-row cost (median nanoseconds per row) of `insert`, `fetch`,
        `update` and `delete` for raw C and LiteRecord at several sizes, each
        size on its own starting store (for the million rows, the `enumerate`
        store). The size of the main table comes from it (same runs);
        the other sizes run \(options.runs) times after a warm-up, except
        \(Options.largeScalingCount.formatted()) rows: three runs without
        warm-up, to stay inside the 20 minutes of `make bench`. Each run is
        one process doing the operation once — no repetition inside a
        process, so the smallest sizes include each operation's fixed costs
        (the transaction, preparing statements, growing the result array).
        "max/min" is the largest per-row cost over the smallest: a
        workload whose cost per row grows with N would show it here.

        \(scalingTable())

        ## Concurrent reads and writes

        `concurrent` (N = \(options.count.formatted())): \(ConcurrentRun.readers)
        reader tasks loop the 200 queries of the query workload (each starting
        at its own place in the cycle) while one writer task inserts the next
        rows of the data set in transactions of \(ConcurrentRun.batchSize),
        for \(Int(ConcurrentRun.duration.asSeconds)) s; each side stops at the first query or batch it
        would start after that, and the rates divide by the time until the
        last one finished. LiteRecord: readers `try await stack.read { context
        in … }` (its pool of reader connections, WAL), the writer `try await
        stack.write { context in … }` inserting new `@Entity` objects. GRDB:
        a `DatabasePool` (`maximumReaderCount` \(ConcurrentRun.readers)) with
        `try await pool.read` running the query-workload request of GRDB
        records and `try await pool.write` inserting `Codable` records. Raw C,
        for reference: one thread and connection per reader, one for the
        writer (`BEGIN IMMEDIATE` … `COMMIT` per batch). `literecord-mmap` is
        LiteRecord with `RecordStack.memoryMappedReadSize` set (1 GiB), which
        is off by default: see `Docs/Concurrency.md` for why. Both writers build
        their objects from the data set inside the clock. Checked in every
        run: each query returned 100 rows, ages in its range and names in
        order; afterwards the file holds exactly the first N + (rows written)
        rows of the data set (its checksum against the generator's) —
        "ok" below means all of it held. This machine has
        \(machine.cores) cores for 5 busy tasks, so the rates show how the work
        shares them, not how it scales.

        \(concurrentTable())

        ## Memory per fetched object

        The `fetch` workload's cost in memory: the first line divides the
        difference of the two engines' peak RSS in the fetch rows of the
        main table by N; the others come from the `memory` and
        `memory-plain` workloads, one untimed run each that fetches all N
        rows as `fetch` does — in an observable context, as the main context
        is (`memory`), or in one made by `stack.newContext()` off the main
        actor, which is not observable (`memory-plain`), reading every
        property of every object before the second measurement — and reads
        glibc's `mallinfo2()` (heap bytes in use) before and after.
        `memory-user` is `memory-plain` for an entity of the shape apps
        write: `uuid` a `String` (a real UUID's 36 characters, where `Item`
        keeps a `UUID`), `name`, an indexed `age`, `score`, a `created` date
        and an `email: String?` that is `nil` in a third of the rows (raw C
        reads the same rows into its structs of Swift strings and values).
        Their peak RSS is the child's at the second measurement (raw C's
        after its fetch), against raw C's child fetching the same rows into
        structs. The
        breakdown is measured too: the object's malloc block
        (`malloc_usable_size`; its `RecordState` is a stored property), the
        text values (copies of every name and email, and `memory-user`'s
        uuids, measured with `mallinfo2`), what
        the context frees when it goes away while the objects stay (its
        identity map, and snapshots — which `@Entity` classes, tracking their
        own changes, do not keep), and the 8-byte reference in the returned
        array; "rest" is the total minus all of these.

        \(memoryTable())

        ## Known limits of this run

        - LiteRecord runs through its public API as a user writes it: `@Entity`
          classes, `context.insert` + one `save()`, `findAll`, `FetchRequest`
          with `#Predicate` and `SortDescriptor`, `enumerate(batchSize:)`.
        - LiteRecord's string sort and string predicates use Swift's own
          comparison (so results match `sorted(using:)` and
          `predicate.evaluate` exactly). Two ASCII strings are compared in C,
          eight bytes at a time; anything else calls Swift. Either way SQLite compares
          through a collation, a little slower than the others' built-in
          binary one, and `ORDER BY` adds the primary key to break ties as
          `sorted(using:)` does. A `#Predicate` is translated once per shape
          (its expression tree, operators and key paths) and its captured values
          are bound afresh each time. Where the instructions above raw C's go:
          "Profile notes" below.
        - The benchmark binary is a release build; the `@Entity` macro that
          generated LiteRecord's entity code ran as a debug build (`make
          bench` skips swift-syntax's release build). The generated code is
          the same either way.
        - Scaling: each size runs the operation once per process, so the
          1,000-row cells carry the fixed cost of a save or a statement
          (opening the transaction, the first pages of a new table) over few
          rows; raw C shows the same. Per-row cost from 10,000 to 1,000,000
          rows is the measure of linearity.
        - Optimistic locking (`Z_OPT`, `Docs/Concurrency.md`) adds a version
          check to every update and delete, at no extra statement.
        - `stack.read` and `stack.write` run their closures on the library's
          own dispatch queues, not on the cooperative pool: with four readers
          looping on two cores the writer no longer waits for a thread.
        - This is a shared 2-core machine: medians move by several percent
          between runs. Compare ratios within one run, not milliseconds across
          runs. The instruction counts of "Instructions" (`make
          bench-instructions`) are exact; to see where they go, profile one
          child with `valgrind --tool=callgrind` (see `Benchmarks/README.md`).

        \(Self.preservedHandWrittenSections())
        """
    }

    /// The sections of the current `Docs/Performance.md` that this run does
    /// not measure, kept as they are: from "Instructions" (`make
    /// bench-instructions`) on, or from "Server" on when there is none yet —
    /// the profile notes, `make bench-server`, `make bench-search`, `make
    /// bench-history` and the other hand-written sections.
    static func preservedHandWrittenSections() -> String {
        let url = packageDirectory.deletingLastPathComponent().appendingPathComponent("Docs/Performance.md")
        guard let text = try? String(contentsOf: url, encoding: .utf8),
            let start = ["\n## Instructions\n", "\n## Profile notes\n", "\n## Server\n"]
                .compactMap({ text.range(of: $0) }).min(by: { $0.lowerBound < $1.lowerBound })
        else {
            return ""
        }
        return String(text[start.lowerBound...]).trimmingCharacters(in: .newlines) + "\n"
    }

    private var grdbVersion: String { "7.10.0" }

    // MARK: JSON

    struct Document: Codable {
        var machine: MachineInfo
        var count: Int
        var enumerateCount: Int
        var authorCount: Int
        var runs: Int
        var wallSeconds: Double
        var results: [Cell]
        /// The scaling section: insert, fetch, update, delete at each size.
        var scaling: [Cell]
    }

    func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(
            Document(
                machine: machine, count: options.count, enumerateCount: options.enumerateCount, authorCount: options.authorCount, runs: options.runs,
                wallSeconds: wallSeconds, results: cells, scaling: scaling))
    }
}
