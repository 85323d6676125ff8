import ArgumentParser
import Foundation
import LiteRecord

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run SQLite's integrity and foreign-key checks; exit non-zero on any problem.")

    @Argument(help: "The store file.")
    var path: String

    func run() throws {
        let result: StoreCheck
        do {
            result = try StoreCheck(storeAt: URL(fileURLWithPath: path))
        } catch {
            throw Failure.report("check", error)
        }
        if result.isHealthy {
            print("ok: \(path) passed the integrity and foreign-key checks")
        } else {
            for problem in result.problems { print("problem: \(problem)") }
            throw Failure.report(
                "check", "\(result.problems.count) problem\(result.problems.count == 1 ? "" : "s") found in \(path)",
                code: Failure.storeProblem)
        }
    }
}
