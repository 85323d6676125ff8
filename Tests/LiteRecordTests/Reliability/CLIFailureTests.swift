import Foundation
import Testing

/// `literecord inspect|check|locate` on a missing, unreadable, damaged or
/// non-database file or a folder: one line on standard error naming the file
/// and the problem, exit 1 (the store has a problem) or 2 (the command could
/// not run), never the usage text; and the read-only commands leave nothing
/// beside a store, for `--json` and unreadable files too.
@Suite struct CLIFailureTests {
    enum Broken: String, CaseIterable, Sendable {
        case missing, folder, unreadable, notADatabase, damagedHeader, truncated

        /// 1: the store has a problem; 2: the command could not run.
        var expectedStatus: Int32 { self == .missing || self == .folder || self == .unreadable ? 2 : 1 }
    }

    static func make(_ broken: Broken, at url: URL) throws {
        switch broken {
        case .missing: break
        case .folder: try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        case .unreadable:
            try DamagedFileTests.healthyStore(at: url)
            try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: url.path)
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

    /// Runs the built `literecord` (or `binary`) with `arguments`. Permissions do not stop root,
    /// so as root the binary runs without the capabilities that let it read
    /// any file (util-linux's `setpriv`); `nil` when that cannot be done.
    static func runWithoutOverride(
        _ arguments: [String], environment: [String: String]? = nil, binary: URL? = nil
    ) async throws -> ChildOutput? {
        let binary = try binary ?? Reliability.binary()
        guard getuid() == 0 else { return try await Reliability.run(binary, arguments, environment: environment) }
        let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let setpriv else { return nil }
        return try await Reliability.run(
            URL(fileURLWithPath: setpriv), ["--bounding-set", "-dac_override,-dac_read_search", binary.path] + arguments,
            environment: environment)
    }

    @Test(arguments: Broken.allCases, [["inspect"], ["check"], ["inspect", "--json"]])
    func brokenStoreGivesOneLineAndAMeaningfulStatus(_ broken: Broken, _ command: [String]) async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("broken.sqlite")
        try Self.make(broken, at: url)
        let before = Reliability.snapshot(url)
        guard let output = try await Self.runWithoutOverride(command + [url.path]) else {
            Reliability.report("SKIPPED \(command) on an unreadable file: running as root and setpriv is not installed")
            return
        }
        #expect(output.status == broken.expectedStatus, "\(command) \(broken): \(output.status) \(output.standardError)")
        let lines = output.standardError.split(separator: "\n")
        #expect(lines.count == 1, "\(output.standardError)")
        #expect(output.standardError.hasPrefix("literecord \(command[0]): "), "\(output.standardError)")
        #expect(output.standardError.contains(url.path), "\(output.standardError)")
        if command[0] == "inspect" {
            // `check` lists the problems it found on standard output; `inspect`, text or JSON, prints no half report.
            #expect(output.standardOutput.isEmpty, "\(output.standardOutput)")
        }
        #expect(!output.standardError.localizedCaseInsensitiveContains("usage"))
        #expect(!output.standardOutput.localizedCaseInsensitiveContains("usage"))
        #expect(Reliability.snapshot(url) == before)
        #expect(Reliability.companions(of: url).isEmpty, "left \(Reliability.companions(of: url))")
    }

    @Test func checkAndInspectLeaveNothingBesideAHealthyStore() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("healthy.sqlite")
        try DamagedFileTests.healthyStore(at: url)
        let before = Reliability.snapshot(url)
        for command in ["check", "inspect"] {
            let output = try await Reliability.run(Reliability.binary(), [command, url.path])
            #expect(output.status == 0, "\(command): \(output.standardError)")
            #expect(Reliability.companions(of: url).isEmpty, "\(command) left \(Reliability.companions(of: url))")
        }
        #expect(Reliability.snapshot(url) == before)
    }

    @Test func locateReportsAFileThatIsNotAStore() async throws {
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
        let text = try await Reliability.run(Reliability.binary(), ["locate", "Text", "--app", "CLIFailure"], environment: environment)
        #expect(text.status == 1, "\(text)")
        #expect(text.standardError.split(separator: "\n").count == 1, "\(text.standardError)")
        #expect(text.standardError.contains("Text.sqlite") && text.standardError.contains("not a SQLite database"), "\(text.standardError)")

        try FileManager.default.createDirectory(at: documents.appendingPathComponent("Folder.sqlite"), withIntermediateDirectories: false)
        let folder = try await Reliability.run(Reliability.binary(), ["locate", "Folder", "--app", "CLIFailure"], environment: environment)
        #expect(folder.status == 2, "\(folder)")
        #expect(folder.standardError.contains("Folder.sqlite"), "\(folder.standardError)")
        #expect(!folder.standardError.localizedCaseInsensitiveContains("usage"))

        let unreadable = documents.appendingPathComponent("Unreadable.sqlite")
        try DamagedFileTests.healthyStore(at: unreadable)
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: unreadable.path)
        if let locked = try await Self.runWithoutOverride(["locate", "Unreadable", "--app", "CLIFailure"], environment: environment) {
            #expect(locked.status == 2, "\(locked)")
            #expect(locked.standardError.split(separator: "\n").count == 1, "\(locked.standardError)")
            #expect(locked.standardError.contains("Unreadable.sqlite") && locked.standardError.contains("cannot be read"), "\(locked.standardError)")
        } else {
            Reliability.report("SKIPPED locate on an unreadable file: running as root and setpriv is not installed")
        }
    }
}

/// `literecord backup STORE DEST` when it cannot: one line on
/// standard error naming the file, a non-zero status, no usage text, no
/// DEST left behind, the store unchanged.
extension CLIFailureTests {
    @Test(arguments: Broken.allCases)
    func backupOfABrokenStoreGivesOneLineAndNoCopy(_ broken: Broken) async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("broken.sqlite")
        let destination = folder.file("backup.sqlite")
        try CLIFailureTests.make(broken, at: url)
        let before = Reliability.snapshot(url)
        guard let output = try await CLIFailureTests.runWithoutOverride(["backup", url.path, destination.path]) else {
            Reliability.report("SKIPPED backup of an unreadable file: running as root and setpriv is not installed")
            return
        }
        #expect(output.status == broken.expectedStatus, "\(broken): \(output.status) \(output.standardError)")
        #expect(output.standardError.split(separator: "\n").count == 1, "\(output.standardError)")
        #expect(output.standardError.hasPrefix("literecord backup: "), "\(output.standardError)")
        #expect(output.standardError.contains(url.path), "\(output.standardError)")
        #expect(output.standardOutput.isEmpty, "\(output.standardOutput)")
        #expect(!output.standardError.localizedCaseInsensitiveContains("usage"))
        #expect(Reliability.snapshot(url) == before)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(Reliability.companions(of: destination).isEmpty)
    }

    @Test func backupOntoAnExistingFileIsRefusedAndLeavesItAlone() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("healthy.sqlite")
        try DamagedFileTests.healthyStore(at: url)
        let destination = folder.file("existing.sqlite")
        let bytes = Data("an older backup".utf8)
        try bytes.write(to: destination)
        let output = try await Reliability.run(Reliability.binary(), ["backup", url.path, destination.path])
        #expect(output.status == 2, "\(output)")
        #expect(output.standardError.split(separator: "\n").count == 1, "\(output.standardError)")
        #expect(output.standardError.contains("\(destination.path) already exists"), "\(output.standardError)")
        #expect(!output.standardError.localizedCaseInsensitiveContains("usage"))
        #expect(try Data(contentsOf: destination) == bytes)
    }

    @Test func backupIntoAMissingFolderFails() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("healthy.sqlite")
        try DamagedFileTests.healthyStore(at: url)
        let destination = folder.url.appendingPathComponent("missing/backup.sqlite")
        let output = try await Reliability.run(Reliability.binary(), ["backup", url.path, destination.path])
        #expect(output.status == 2, "\(output)")
        #expect(output.standardError.split(separator: "\n").count == 1, "\(output.standardError)")
        #expect(output.standardError.contains("does not exist"), "\(output.standardError)")
        #expect(!FileManager.default.fileExists(atPath: destination.deletingLastPathComponent().path))
    }
}
