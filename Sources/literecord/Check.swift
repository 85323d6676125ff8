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
            print("error: \(error.message)")
            throw ExitCode(2)
        }
        if result.isHealthy {
            print("ok: \(path) passed the integrity and foreign-key checks")
        } else {
            for problem in result.problems { print("problem: \(problem)") }
            print("\(result.problems.count) problem\(result.problems.count == 1 ? "" : "s") found in \(path)")
            throw ExitCode.failure
        }
    }
}
