import Foundation

/// Facts about the process and the machine, read from `/proc` on Linux.
enum Machine {
    /// The process's peak resident set size (`VmHWM`) in kibibytes, or 0 where
    /// `/proc` does not exist.
    static func peakResidentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }

    static var cpuModel: String {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown" }
        for line in info.split(separator: "\n") where line.hasPrefix("model name") {
            return line.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        }
        return "unknown"
    }

    static var operatingSystem: String {
        guard let release = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8) else { return "unknown" }
        for line in release.split(separator: "\n") where line.hasPrefix("PRETTY_NAME=") {
            return String(line.dropFirst("PRETTY_NAME=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return "unknown"
    }

    /// The 1-minute load average: how busy the machine was around the run.
    static var loadAverage: String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    /// The first line of `swift --version`, as found on `PATH`.
    static var swiftVersion: String {
        firstLine(of: ["swift", "--version"])
    }

    /// The commit of the repository the benchmark was built from (short
    /// hash), saying so when `Sources/` or `Benchmarks/Sources/` differ from it.
    static var commit: String {
        let root = Report.packageDirectory.deletingLastPathComponent().path
        let head = firstLine(of: ["git", "-C", root, "rev-parse", "--short", "HEAD"])
        let dirty = firstLine(of: [
            "git", "-C", root, "status", "--porcelain", "--untracked-files=no", "--", "Sources", "Benchmarks/Sources",
        ])
        return dirty == "unknown" ? head : head + " (with uncommitted changes to Sources/ or Benchmarks/Sources/)"
    }

    /// The first line a command prints, or "unknown" when it prints nothing
    /// or cannot run.
    private static func firstLine(of arguments: [String]) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return "unknown"
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        return text.split(separator: "\n").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
    }

    /// This executable, to re-launch for each measurement.
    static var executablePath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? Bundle.main.executablePath
            ?? CommandLine.arguments[0]
    }
}
