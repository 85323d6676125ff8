import Foundation

/// Command-line options. Without `--child` or `--prepare` the program is the
/// driver: it runs every engine × workload in child processes and reports.
///
///     LiteRecordBenchmarks [--engines a,b] [--workloads x,y] [--runs 5] [--n 100000]
///                          [--enumerate-n 1000000] [--authors 10000] [--scaling 1000,10000,… | none]
///                          [--full-size] [--report | --no-report]
///
/// `--workloads relationships` stands for the three relationship workloads.
/// `--scaling` lists the sizes of the scaling section (insert, fetch, update
/// and delete, raw C and LiteRecord); without it a run given `--workloads`
/// skips that section.
///     LiteRecordBenchmarks --child --engine E --workload W --n N --store PATH
///     LiteRecordBenchmarks --prepare --engine E --workload W --n N --store PATH
///
/// `--prepare` writes the store a workload starts from, so that one child can
/// be run by hand under a profiler:
///
///     valgrind --tool=callgrind .build/release/LiteRecordBenchmarks --child …
struct Options {
    enum Mode { case driver, child, prepare }

    var mode = Mode.driver
    var engines = Engines.all.map(\.name)
    var workloads = Workload.allCases
    var runs = 5
    var count = 100_000
    var enumerateCount = 1_000_000
    /// Authors of the relationship workloads (each has ten books).
    var authorCount = Library.defaultAuthorCount
    /// A child counts the statements it runs (the driver asks in the warm-up round).
    var countStatements = false
    /// `nil`: write the reports only for a full run with the default sizes.
    var writeReport: Bool?
    var store = ""
    /// Ignore the engines' row divisors: every engine runs at N.
    var fullSize = false
    /// The sizes of the scaling section (`Workload.scaling`, `Engines.scalingNames`);
    /// empty when `--workloads` is given without `--scaling`.
    var scalingCounts = Options.defaultScalingCounts

    static let defaultScalingCounts = [1_000, 10_000, 100_000, 1_000_000]
    /// From this size on the scaling section runs three times, without a warm-up.
    static let largeScalingCount = 1_000_000

    /// The command-line arguments the options were parsed from.
    var arguments: [String] = []

    var isFullRun: Bool {
        engines == Engines.all.map(\.name) && workloads == Workload.allCases && runs >= 5 && count == 100_000
            && enumerateCount == 1_000_000 && authorCount == Library.defaultAuthorCount
            && scalingCounts == Options.defaultScalingCounts
    }

    /// What produced this run, for the report: `make bench` for the full
    /// run with its defaults, else the executable with its arguments.
    var command: String {
        isFullRun && arguments.isEmpty ? "make bench" : (["LiteRecordBenchmarks"] + arguments).joined(separator: " ")
    }

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        options.arguments = arguments
        var iterator = arguments.makeIterator()
        var scalingGiven = false
        var workloadsGiven = false
        func value(_ flag: String) throws -> String {
            guard let value = iterator.next() else { throw UsageError("\(flag) needs a value") }
            return value
        }
        func number(_ flag: String) throws -> Int {
            let text = try value(flag)
            guard let number = Int(text.replacingOccurrences(of: "_", with: "")), number >= 0 else {
                throw UsageError("\(flag) needs a non-negative number, not '\(text)'")
            }
            return number
        }
        while let argument = iterator.next() {
            switch argument {
            case "--child": options.mode = .child
            case "--prepare": options.mode = .prepare
            case "--engine", "--engines":
                options.engines = try value(argument).split(separator: ",").map(String.init)
                for name in options.engines where Engines.named(name) == nil {
                    throw UsageError("unknown engine '\(name)'; engines: \(Engines.all.map(\.name).joined(separator: ", "))")
                }
            case "--workload", "--workloads":
                workloadsGiven = true
                options.workloads = try value(argument).split(separator: ",").flatMap { name in
                    if name == "relationships" { return Workload.relationships }
                    guard let workload = Workload(rawValue: String(name)) else {
                        throw UsageError("unknown workload '\(name)'; workloads: \(Workload.allCases.map(\.rawValue).joined(separator: ", ")), relationships")
                    }
                    return [workload]
                }
            case "--scaling":
                scalingGiven = true
                let text = try value(argument)
                options.scalingCounts = try text == "none" ? [] : text.split(separator: ",").map { part in
                    guard let count = Int(part.replacingOccurrences(of: "_", with: "")), count > 0 else {
                        throw UsageError("--scaling needs sizes like 1000,10000 or none, not '\(text)'")
                    }
                    return count
                }
            case "--runs": options.runs = try number(argument)
            case "--n": options.count = try number(argument)
            case "--enumerate-n": options.enumerateCount = try number(argument)
            case "--authors": options.authorCount = try number(argument)
            case "--count-statements": options.countStatements = true
            case "--store": options.store = try value(argument)
            case "--full-size": options.fullSize = true
            case "--report": options.writeReport = true
            case "--no-report": options.writeReport = false
            case "-h", "--help":
                throw UsageError(nil)
            default:
                throw UsageError("unknown argument '\(argument)'")
            }
        }
        if workloadsGiven && !scalingGiven { options.scalingCounts = [] }
        return options
    }

    /// The rows in the store a workload starts from (or inserts).
    func rowCount(for workload: Workload) -> Int {
        switch workload {
        case .enumerate, .launch: enumerateCount
        case .open: 0
        case .relFetch, .relWalk, .relCascade: authorCount
        default: count
        }
    }

    /// The rows `engine` runs `workload` on.
    func rowCount(for workload: Workload, engine: any BenchmarkEngine) -> Int {
        fullSize ? rowCount(for: workload) : rowCount(for: workload) / engine.rowDivisor(for: workload)
    }
}

struct UsageError: Error, CustomStringConvertible {
    let message: String?
    init(_ message: String?) { self.message = message }

    var description: String {
        let usage = """
            usage: LiteRecordBenchmarks [--engines \(Engines.all.map(\.name).joined(separator: ","))]
                                        [--workloads \(Workload.allCases.map(\.rawValue).joined(separator: ","))]
                                        [--runs 5] [--n 100000] [--enumerate-n 1000000] [--authors 10000]
                                        [--scaling 1000,10000,100000,1000000 | none] [--full-size]
                                        [--report | --no-report]
                   LiteRecordBenchmarks --child | --prepare --engine E --workload W --n N --store PATH
            """
        return message.map { "error: \($0)\n\(usage)" } ?? usage
    }
}
