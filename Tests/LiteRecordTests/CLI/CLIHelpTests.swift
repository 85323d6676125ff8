import Foundation
import Testing

/// `literecord` and its binary hold only what users run: the commands only
/// tests run live in `LiteRecordTestChild`. Neither the help nor the whole
/// command tree (hidden commands included, as ArgumentParser dumps it) names
/// a command starting with `_`, and the old test-only names are unknown.
@Suite struct CLIHelpTests {
    private func run(_ arguments: [String]) async throws -> ChildOutput {
        try await Reliability.run(Reliability.binary(), arguments)
    }

    @Test func helpListsNoUnderscoreCommand() async throws {
        let help = try await run(["--help"])
        #expect(help.status == 0, "\(help.standardError)")
        let text = help.standardOutput + help.standardError
        #expect(text.contains("SUBCOMMANDS:") && text.contains("inspect"), "\(text)")
        let underscored = text.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("_") }
        #expect(underscored.isEmpty, "\(underscored)")
    }

    @Test func theCommandTreeHoldsNoUnderscoreCommand() async throws {
        let dump = try await run(["--experimental-dump-help"])
        #expect(dump.status == 0, "\(dump.standardError)")
        let tree = try JSONSerialization.jsonObject(with: Data(dump.standardOutput.utf8))
        let names = Self.commandNames(in: tree)
        #expect(names.contains("inspect") && names.contains("demo"), "\(names)")
        #expect(names.allSatisfy { !$0.hasPrefix("_") }, "\(names)")
    }

    @Test(arguments: ["_crash-writer", "_lifecycle", "_stress-write", "_wal-growth", "_search-writer", "_edit-note"])
    func aTestOnlyCommandIsUnknown(_ command: String) async throws {
        let output = try await run([command, "/nonexistent/store.sqlite"])
        #expect(output.status != 0)
        #expect(output.standardError.contains("Unexpected argument") || output.standardError.contains("Error"), "\(output.standardError)")
    }

    /// Every `commandName` in ArgumentParser's JSON dump of the command tree.
    private static func commandNames(in value: Any) -> [String] {
        if let dictionary = value as? [String: Any] {
            let own = (dictionary["commandName"] as? String).map { [$0] } ?? []
            return own + dictionary.values.flatMap { commandNames(in: $0) }
        }
        if let array = value as? [Any] { return array.flatMap { commandNames(in: $0) } }
        return []
    }
}
