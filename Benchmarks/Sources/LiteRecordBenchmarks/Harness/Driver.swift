import Foundation

/// The aggregated runs of one engine on one workload.
struct Cell: Codable, Sendable {
    var engine: String
    var workload: String
    /// The rows the workload ran on (N, or fewer for a slow engine).
    var rows: Int
    var runsMilliseconds: [Double]
    var medianMilliseconds: Double
    /// Median over the faster median of the low-level engines, same run
    /// (per row when the engine ran on fewer rows than they did).
    var ratioToBestLowLevel: Double?
    var peakResidentMiB: Double
    var checksum: String
    /// The checksum computed from the generator for the same rows.
    var expectedChecksum: String
    var checksumAgrees: Bool
    /// Statements the engine ran (counted in the warm-up round), where it counts them.
    var statements: Int?
    /// The median of each figure the runs reported beside their time
    /// (`Metric` names): reads and writes per second, bytes per object.
    var metrics: [String: Double]?
}

/// Runs every engine × workload in child processes: for each workload, a
/// warm-up round then `runs` measured rounds, each round running every engine
/// once (interleaved, so that a load spike on this shared machine hits all
/// engines alike rather than one), each run on a fresh copy of a template.
struct Driver {
    let options: Options

    func run() throws -> Bool {
        let started = ContinuousClock.now
        let engines = options.engines.compactMap(Engines.named)
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("literecord-bench-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }

        let loadBefore = Machine.loadAverage
        log("LiteRecord benchmarks: \(engines.count) engines × \(options.workloads.count) workloads, 1 warm-up + \(options.runs) runs each; N = \(options.count)")
        let templates = try makeTemplates(engines, in: scratch)

        var cells: [Cell] = []
        for workload in options.workloads {
            let runners = engines.filter { $0.supports(workload) }
            cells += try measure(
                workload, engines: runners, rows: { options.rowCount(for: workload, engine: $0) },
                runs: workload.isSingleRun ? 1 : options.runs, warmUp: !workload.isSingleRun, templates: templates, in: scratch)
        }

        // Scaling: the same workloads at other sizes, raw C and LiteRecord;
        // the size of the main matrix is taken from it.
        var scaling: [Cell] = []
        let scalingEngines = engines.filter { Engines.scalingNames.contains($0.name) }
        for count in options.scalingCounts where !scalingEngines.isEmpty {
            for workload in Workload.scaling {
                let measured = cells.filter { cell in
                    cell.workload == workload.rawValue && cell.rows == count && Engines.scalingNames.contains(cell.engine)
                }
                if measured.count == scalingEngines.count {
                    scaling += measured
                    continue
                }
                // A million rows take seconds per run: three runs, no warm-up.
                let large = count >= Options.largeScalingCount
                scaling += try measure(
                    workload, engines: scalingEngines, rows: { _ in count }, runs: large ? min(3, options.runs) : options.runs,
                    warmUp: !large, templates: templates, in: scratch)
            }
        }

        let report = Report(
            cells: cells, scaling: scaling, options: options, machine: .current(loadBefore: loadBefore, command: options.command),
            wallSeconds: (ContinuousClock.now - started).asSeconds)
        print(report.markdownTables())
        if options.writeReport ?? options.isFullRun {
            let benchmarks = Report.packageDirectory
            try report.markdown().write(to: benchmarks.deletingLastPathComponent().appendingPathComponent("Docs/Performance.md"), atomically: true, encoding: .utf8)
            try report.json().write(to: benchmarks.appendingPathComponent("results.json"))
            log("wrote Docs/Performance.md and Benchmarks/results.json")
        } else {
            log("partial run: Docs/Performance.md and results.json left as they were (pass --report to write them)")
        }
        let agree = (cells + scaling).allSatisfy(\.checksumAgrees)
        if !agree { log("error: engines disagree on the data (see CHECKSUM MISMATCH above)") }
        return agree
    }

    /// Runs `workload` on every engine of `engines`: a warm-up round (when
    /// `warmUp`), then `runs` measured rounds, and aggregates them.
    private func measure(
        _ workload: Workload, engines runners: [any BenchmarkEngine], rows: (any BenchmarkEngine) -> Int, runs roundCount: Int,
        warmUp: Bool, templates: [TemplateKey: String], in scratch: URL
    ) throws -> [Cell] {
        var runs: [String: [ChildResult]] = [:]
        var statements: [String: Int] = [:]
        for round in (warmUp ? 0 : 1)...roundCount {
            // The order turns by one engine each round, so that no engine
            // always runs right after the same one (after Fluent's large
            // process, say) and position effects spread over all of them.
            let start = runners.isEmpty ? 0 : round % runners.count
            for engine in runners[start...] + runners[..<start] {
                let key = TemplateKey(family: engine.templateFamily, kind: workload.template, rows: rows(engine))
                // The warm-up round counts the statements of the
                // relationship workloads; measured rounds run untraced.
                let count = round == 0 && workload.isRelationship
                let result = try runChild(
                    engine, workload, rows: key.rows, template: templates[key] ?? "", in: scratch, countStatements: count)
                if round > 0 { runs[engine.name, default: []].append(result) }
                if let counted = result.statements { statements[engine.name] = counted }
            }
        }
        var cells = aggregate(workload, engines: runners, rows: rows, runs: runs)
        for index in cells.indices { cells[index].statements = statements[cells[index].engine] }
        for cell in cells {
            log("  \(pad(workload.rawValue, 12)) \(pad(cell.engine, 12)) \(pad(cell.rows.formatted(), 9)) \(format(cell.medianMilliseconds)) ms"
                + "  ×\(cell.ratioToBestLowLevel.map { String(format: "%.2f", $0) } ?? "-")"
                + "  \(String(format: "%.1f", cell.peakResidentMiB)) MB"
                + (cell.statements.map { "  \($0) statements" } ?? "")
                + (cell.metrics.map { "  " + $0.sorted { $0.key < $1.key }.map { "\($0.key) \(String(format: "%.1f", $0.value))" }.joined(separator: ", ") } ?? "")
                + (cell.checksumAgrees ? "" : "  CHECKSUM MISMATCH"))
        }
        return cells
    }

    // MARK: Templates

    struct TemplateKey: Hashable {
        let family: String
        let kind: TemplateKind
        let rows: Int

        init(family: String, kind: TemplateKind, rows: Int) {
            // Every engine opens the same launch store (LiteRecord's file):
            // made once, not once per family.
            self.family = kind == .launch ? "every" : family
            // The enumerate workload's store holds the same rows as `items`:
            // one template serves both (the scaling section's million rows).
            self.kind = kind == .manyItems ? .items : kind
            self.rows = rows
        }
    }

    /// Every (workload, engine, rows) the run measures, for the templates.
    private func plannedRuns(_ engines: [any BenchmarkEngine]) -> [(Workload, any BenchmarkEngine, Int)] {
        var planned: [(Workload, any BenchmarkEngine, Int)] = []
        for workload in options.workloads {
            for engine in engines where engine.supports(workload) {
                planned.append((workload, engine, options.rowCount(for: workload, engine: engine)))
            }
        }
        for count in options.scalingCounts {
            for workload in Workload.scaling {
                for engine in engines where Engines.scalingNames.contains(engine.name) {
                    planned.append((workload, engine, count))
                }
            }
        }
        return planned
    }

    /// Writes each starting store once per engine family; runs copy them.
    private func makeTemplates(_ engines: [any BenchmarkEngine], in folder: URL) throws -> [TemplateKey: String] {
        var templates: [TemplateKey: String] = [:]
        for (workload, engine, rows) in plannedRuns(engines) {
            let key = TemplateKey(family: engine.templateFamily, kind: workload.template, rows: rows)
            if templates[key] != nil { continue }
            let path = folder.appendingPathComponent("template-\(key.family)-\(key.kind.rawValue)-\(key.rows).sqlite").path
            let clock = ContinuousClock.now
            try engine.makeTemplate(key.kind, at: path, count: key.rows)
            for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
                throw SQLiteFailure(code: 0, message: "template \(path) was not checkpointed (\(suffix) left behind)")
            }
            log("  template \(key.family)/\(key.kind.rawValue)/\(key.rows): \(format((ContinuousClock.now - clock).asMilliseconds)) ms")
            templates[key] = path
        }
        return templates
    }

    // MARK: Children

    private func runChild(
        _ engine: any BenchmarkEngine, _ workload: Workload, rows: Int, template: String, in folder: URL,
        countStatements: Bool = false
    ) throws -> ChildResult {
        let store = folder.appendingPathComponent("run-\(engine.name)-\(workload.rawValue).sqlite").path
        let files = [store, store + "-wal", store + "-shm"]
        for file in files { try? FileManager.default.removeItem(atPath: file) }
        defer { for file in files { try? FileManager.default.removeItem(atPath: file) } }
        try FileManager.default.copyItem(atPath: template, toPath: store)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: Machine.executablePath)
        process.arguments = [
            "--child", "--engine", engine.name, "--workload", workload.rawValue,
            "--n", "\(rows)", "--enumerate-n", "\(rows)", "--authors", "\(rows)", "--store", store,
        ] + (countStatements ? ["--count-statements"] : [])
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0,
            let line = text.split(separator: "\n").last(where: { $0.hasPrefix("{") })
        else {
            throw SQLiteFailure(
                code: process.terminationStatus,
                message: "the \(engine.name) \(workload.rawValue) child failed (exit \(process.terminationStatus)): \(text)")
        }
        return try JSONDecoder().decode(ChildResult.self, from: Data(line.utf8))
    }

    // MARK: Aggregation

    private func aggregate(
        _ workload: Workload, engines: [any BenchmarkEngine], rows rowCount: (any BenchmarkEngine) -> Int, runs: [String: [ChildResult]]
    ) -> [Cell] {
        let medians = runs.mapValues { median($0.map(\.milliseconds)) }
        let rows = Dictionary(uniqueKeysWithValues: engines.map { ($0.name, rowCount($0)) })
        // The baseline per row, so that an engine run on fewer rows compares fairly.
        let baselinePerRow = Engines.baselineNames.compactMap { name -> Double? in
            guard let median = medians[name], let count = rows[name] else { return nil }
            return median / Double(max(count, 1))
        }.min()
        var expected: [Int: String] = [:]
        return engines.compactMap { engine in
            guard let results = runs[engine.name], let median = medians[engine.name], let count = rows[engine.name] else {
                return nil
            }
            if expected[count] == nil {
                expected[count] = workload.isRelationship
                    ? LibrarySchema.expected(workload, authors: count).text : Expected.checksum(workload, count: count)
            }
            let reference = expected[count] ?? ""
            return Cell(
                engine: engine.name, workload: workload.rawValue, rows: count, runsMilliseconds: results.map(\.milliseconds),
                medianMilliseconds: median,
                ratioToBestLowLevel: workload.hasTimeRatio ? baselinePerRow.map { median / Double(max(count, 1)) / $0 } : nil,
                peakResidentMiB: self.median(results.map { Double($0.peakResidentKiB) / 1024 }),
                checksum: results[0].checksum, expectedChecksum: reference,
                checksumAgrees: results.allSatisfy { $0.checksum == reference },
                metrics: medianMetrics(results))
        }
    }

    /// Each metric's median over the runs that reported it.
    private func medianMetrics(_ results: [ChildResult]) -> [String: Double]? {
        let all = results.compactMap(\.metrics)
        guard !all.isEmpty else { return nil }
        let keys = Set(all.flatMap(\.keys))
        return Dictionary(uniqueKeysWithValues: keys.map { key in (key, median(all.compactMap { $0[key] })) })
    }

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    private func log(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

func format(_ milliseconds: Double) -> String {
    milliseconds >= 100 ? String(format: "%.0f", milliseconds) : String(format: "%.1f", milliseconds)
}

func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

extension Duration {
    var asMilliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }

    var asSeconds: Double { asMilliseconds / 1000 }
}
