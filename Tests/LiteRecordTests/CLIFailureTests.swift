import Foundation
import Testing

/// `literecord inspect|check|locate` on a missing, damaged or non-database
/// file: one line on standard error naming the file and the problem, exit 1
/// (the store has a problem) or 2 (the command could not run), never the
/// usage text; and the read-only commands leave nothing beside a store
/// (issue #13, defect 5).
@Suite struct CLIFailureTests {
    enum Broken: String, CaseIterable, Sendable {
        case missing, folder, notADatabase, damagedHeader, truncated

        /// 1: the store has a problem; 2: the command could not run.
        var expectedStatus: Int32 { self == .missing || self == .folder ? 2 : 1 }
    }

    static func make(_ broken: Broken, at url: URL) throws {
        switch broken {
        case .missing: break
        case .folder: try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        case .notADatabase: try Data("just some text\n".utf8).write(to: url)
        case .damagedHeader:
            try DamagedFileTests.healthyStore(at: url)
            try DamagedFileTests.damage(url, .header)
        case .truncated:
            try DamagedFileTests.healthyStore(at: url)
            let bytes = try Data(contentsOf: url)
            try bytes.prefix(1000).write(to: url)
        }
    }

    @Test(arguments: Broken.allCases, ["inspect", "check"])
    func brokenStoreGivesOneLineAndAMeaningfulStatus(_ broken: Broken, _ command: String) throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("broken.sqlite")
        try Self.make(broken, at: url)
        let before = Reliability.snapshot(url)
        let output = try Reliability.run(Reliability.binary(), [command, url.path])
        #expect(output.status == broken.expectedStatus, "\(command) \(broken): \(output.status) \(output.standardError)")
        let lines = output.standardError.split(separator: "\n")
        #expect(lines.count == 1, "\(output.standardError)")
        #expect(output.standardError.contains(url.path), "\(output.standardError)")
        #expect(!output.standardError.localizedCaseInsensitiveContains("usage"))
        #expect(!output.standardOutput.localizedCaseInsensitiveContains("usage"))
        #expect(Reliability.snapshot(url) == before)
        #expect(Reliability.companions(of: url).isEmpty, "left \(Reliability.companions(of: url))")
    }

    @Test func checkAndInspectLeaveNothingBesideAHealthyStore() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("healthy.sqlite")
        try DamagedFileTests.healthyStore(at: url)
        let before = Reliability.snapshot(url)
        for command in ["check", "inspect"] {
            let output = try Reliability.run(Reliability.binary(), [command, url.path])
            #expect(output.status == 0, "\(command): \(output.standardError)")
            #expect(Reliability.companions(of: url).isEmpty, "\(command) left \(Reliability.companions(of: url))")
        }
        #expect(Reliability.snapshot(url) == before)
    }

    @Test func locateReportsAFileThatIsNotAStore() throws {
        // Application Support is $XDG_DATA_HOME on Linux: an existing file
        // there is what `locate` finds.
        let home = try TemporaryDirectory()
        let share = home.url.appendingPathComponent("share", isDirectory: true)
        let documents = share.appendingPathComponent("CLIFailure", isDirectory: true)
        try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.url.path
        environment["XDG_DATA_HOME"] = share.path

        try Data("not a database".utf8).write(to: documents.appendingPathComponent("Text.sqlite"))
        let text = try Reliability.run(Reliability.binary(), ["locate", "Text", "--app", "CLIFailure"], environment: environment)
        #expect(text.status == 1, "\(text)")
        #expect(text.standardError.split(separator: "\n").count == 1, "\(text.standardError)")
        #expect(text.standardError.contains("Text.sqlite") && text.standardError.contains("not a SQLite database"), "\(text.standardError)")

        try FileManager.default.createDirectory(at: documents.appendingPathComponent("Folder.sqlite"), withIntermediateDirectories: false)
        let folder = try Reliability.run(Reliability.binary(), ["locate", "Folder", "--app", "CLIFailure"], environment: environment)
        #expect(folder.status == 2, "\(folder)")
        #expect(folder.standardError.contains("Folder.sqlite"), "\(folder.standardError)")
        #expect(!folder.standardError.localizedCaseInsensitiveContains("usage"))
    }
}
