import Foundation
import Testing
import LiteRecord

/// What a child process printed and how it ended.
struct ChildOutput: Sendable {
    var status: Int32
    var standardOutput: String
    var standardError: String
}

enum Reliability {
    /// Prints a figure the reliability suite reports (Docs/Reliability.md
    /// quotes these lines).
    static func report(_ line: String) {
        print("[reliability] \(line)")
    }

    /// Runs `executable` with `arguments` to its end, stdout and stderr
    /// apart, on a thread of its own (see ``Foundation/Process/runToEnd(includingErrors:within:)``).
    static func run(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) async throws -> ChildOutput {
        let output = try await finishingOnThread(within: 300) { try runBlocking(executable, arguments, environment: environment) }
        guard let output else { throw ChildTimeout(arguments: arguments, seconds: 300) }
        return output
    }

    static func runBlocking(_ executable: URL, _ arguments: [String], environment: [String: String]?) throws -> ChildOutput {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read both before waiting, so a full pipe never stalls the child.
        let errorData = DataBox()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errorData.set(errors.fileHandleForReading.readDataToEndOfFile())
            group.leave()
        }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        group.wait()
        return ChildOutput(
            status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData.value, as: UTF8.self))
    }

    /// What `body` returned, or the ``LiteRecordError`` it threw; any other
    /// error is rethrown.
    static func attempt<T>(_ body: () throws -> T) throws -> Result<T, LiteRecordError> {
        do {
            return .success(try body())
        } catch let error as LiteRecordError {
            return .failure(error)
        }
    }

    /// The built `literecord` binary.
    static func binary() throws -> URL {
        try #require(CLITests.binary, "build the literecord product first (swift build)")
    }

    /// Runs a system command quietly; returns its status and what it printed.
    @discardableResult
    static func system(_ command: String, _ arguments: [String]) -> (status: Int32, output: String) {
        for folder in ["/usr/bin", "/bin", "/usr/sbin", "/sbin"] {
            let url = URL(fileURLWithPath: folder).appendingPathComponent(command)
            guard FileManager.default.isExecutableFile(atPath: url.path) else { continue }
            guard let result = try? runBlocking(url, arguments, environment: nil) else { return (-1, "\(command) could not be started") }
            return (result.status, (result.standardError + result.standardOutput).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return (-1, "\(command) is not installed")
    }

    /// Mounts a tmpfs of `bytes` at a fresh folder, runs `body` with it and
    /// unmounts it. Returns `false` (after printing why) where a tmpfs cannot
    /// be mounted: not root, or no permission to mount in this container.
    static func withSmallDisk(bytes: Int, _ function: String = #function, _ body: (URL) throws -> Void) throws -> Bool {
        guard getuid() == 0 else {
            report("SKIPPED \(function): mounting a small tmpfs needs root (uid \(getuid()))")
            return false
        }
        let folder = try TemporaryDirectory(function)
        let disk = folder.url.appendingPathComponent("disk", isDirectory: true)
        try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
        let mounted = system("mount", ["-t", "tmpfs", "-o", "size=\(bytes)", "tmpfs", disk.path])
        guard mounted.status == 0 else {
            report("SKIPPED \(function): cannot mount a tmpfs here (\(mounted.output))")
            return false
        }
        defer {
            let unmounted = system("umount", [disk.path])
            if unmounted.status != 0 { Issue.record("umount \(disk.path) failed: \(unmounted.output)") }
        }
        try withExtendedLifetime(folder) { try body(disk) }
        return true
    }

    /// Bind-mounts `folder` read-only at a fresh folder, runs `body` with the
    /// read-only view and unmounts it. Returns `false` (after printing why)
    /// where that is not possible.
    static func withReadOnlyView(of folder: URL, _ function: String = #function, _ body: (URL) throws -> Void) throws -> Bool {
        guard getuid() == 0 else {
            report("SKIPPED read-only mount in \(function): needs root (uid \(getuid()))")
            return false
        }
        let holder = try TemporaryDirectory(function)
        let view = holder.url.appendingPathComponent("view", isDirectory: true)
        try FileManager.default.createDirectory(at: view, withIntermediateDirectories: true)
        let bound = system("mount", ["--bind", folder.path, view.path])
        guard bound.status == 0 else {
            report("SKIPPED read-only mount in \(function): cannot bind-mount here (\(bound.output))")
            return false
        }
        defer {
            let unmounted = system("umount", [view.path])
            if unmounted.status != 0 { Issue.record("umount \(view.path) failed: \(unmounted.output)") }
        }
        let readOnly = system("mount", ["-o", "remount,ro,bind", view.path])
        guard readOnly.status == 0 else {
            report("SKIPPED read-only mount in \(function): cannot remount read-only (\(readOnly.output))")
            return false
        }
        try withExtendedLifetime(holder) { try body(view) }
        return true
    }

    /// Makes `url`, a file or a folder, unwritable for this process, runs
    /// `body` and makes it writable again. Modes do not stop root, so as root
    /// the file also gets the immutable attribute (`chattr +i`), which does.
    /// Returns `false` (after printing why) where that is not possible.
    static func withUnwritable(_ url: URL, _ function: String = #function, _ body: () throws -> Void) throws -> Bool {
        var isFolder: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder)
        let writable = isFolder.boolValue ? 0o755 : 0o644
        try FileManager.default.setAttributes([.posixPermissions: isFolder.boolValue ? 0o555 : 0o444], ofItemAtPath: url.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: writable], ofItemAtPath: url.path) }
        if getuid() == 0 {
            let locked = system("chattr", ["+i", url.path])
            guard locked.status == 0 else {
                report("SKIPPED \(function): root writes to a 0444 file and chattr +i failed (\(locked.output))")
                return false
            }
        }
        defer {
            if getuid() == 0 {
                let unlocked = system("chattr", ["-i", url.path])
                if unlocked.status != 0 { Issue.record("chattr -i \(url.path) failed: \(unlocked.output)") }
            }
        }
        guard access(url.path, W_OK) != 0 else {
            report("SKIPPED \(function): \(url.path) stayed writable for this process")
            return false
        }
        try body()
        return true
    }

    /// Fills the file system holding `folder` with a file until it is full;
    /// returns the file, to delete to free the space again.
    static func fill(_ folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("filler")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var chunk = Data(repeating: 0x5A, count: 64 * 1024)
        while chunk.count >= 512 {
            do {
                try handle.write(contentsOf: chunk)
            } catch {
                chunk = Data(repeating: 0x5A, count: chunk.count / 2)
            }
        }
        return url
    }

    /// The files beside a store that a reader must not leave behind.
    static func companions(of url: URL) -> [String] {
        ["-wal", "-shm", "-journal"].filter { FileManager.default.fileExists(atPath: url.path + $0) }
    }

    /// The bytes of `url`, or a description of the folder in its place.
    static func snapshot(_ url: URL) -> Data {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { return Data("missing".utf8) }
        if isFolder.boolValue {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
            return Data(("folder:" + names.sorted().joined(separator: ",")).utf8)
        }
        return (try? Data(contentsOf: url)) ?? Data("unreadable".utf8)
    }
}

/// A `Data` handed over from a reader thread.
final class DataBox: @unchecked Sendable {
    // @unchecked: every access holds `lock`.
    private let lock = NSLock()
    private var stored = Data()
    func set(_ data: Data) { lock.withLock { stored = data } }
    var value: Data { lock.withLock { stored } }
}

/// A small seeded generator (SplitMix64), so a printed seed replays a trial.
struct TrialRandom: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
