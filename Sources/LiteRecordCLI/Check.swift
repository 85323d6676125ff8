import ArgumentParser
import Foundation
import LiteRecord

struct Check: ParsableCommand {
    /// ` and the full-text index check` when the store has full-text indexes.
    private func searchSuffix() -> String {
        let indexes = (try? StoreInspection(storeAt: URL(fileURLWithPath: path)).searchIndexes) ?? []
        return indexes.isEmpty ? "" : " and the full-text index check (\(indexes.map(\.name).joined(separator: ", ")))"
    }

    static let configuration = CommandConfiguration(
        abstract: "Run SQLite's integrity and foreign-key checks and verify the full-text indexes; exit non-zero on any problem.")

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
            print("ok: \(path) passed the integrity and foreign-key checks\(searchSuffix())")
        } else {
            for problem in result.problems { print("problem: \(problem)") }
            throw Failure.report(
                "check", "\(result.problems.count) problem\(result.problems.count == 1 ? "" : "s") found in \(path)",
                code: Failure.storeProblem)
        }
    }
}
