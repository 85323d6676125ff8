import Foundation

@main
enum LiteRecordBenchmarks {
    static func main() {
        run(Array(CommandLine.arguments.dropFirst()))
    }

    static func run(_ arguments: [String]) {
        do {
            let options = try Options.parse(arguments)
            switch options.mode {
            case .driver:
                let ok = try Driver(options: options).run()
                if !ok { exit(1) }
            case .child:
                let (engine, workload) = try single(options)
                if workload == .concurrent {
                    // The main thread serves the main queue, as an app's does
                    // (LiteRecord's `write` hops to the main actor to merge);
                    // the child runs on a thread of its own and exits.
                    let box = UncheckedBox((engine, options))
                    Thread.detachNewThread {
                        let (engine, options) = box.value
                        do {
                            let result = try ChildRunner.run(
                                engine: engine, workload: .concurrent, store: options.store, count: options.count)
                            try ChildRunner.printResult(result)
                            exit(0)
                        } catch {
                            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                            exit(1)
                        }
                    }
                    dispatchMain()
                }
                let result = try ChildRunner.run(
                    engine: engine, workload: workload, store: options.store, count: options.rowCount(for: workload),
                    countStatements: options.countStatements)
                try ChildRunner.printResult(result)
            case .prepare:
                let (engine, workload) = try single(options)
                try engine.makeTemplate(workload.template, at: options.store, count: options.rowCount(for: workload))
            }
        } catch let error as UsageError {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            exit(2)
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            exit(1)
        }
    }

    private static func single(_ options: Options) throws -> (any BenchmarkEngine, Workload) {
        guard options.engines.count == 1, let engine = Engines.named(options.engines[0]),
            options.workloads.count == 1, !options.store.isEmpty
        else { throw UsageError("--child and --prepare need one --engine, one --workload and --store") }
        return (engine, options.workloads[0])
    }
}
