import Foundation
import Testing

/// What a child process printed and how it ended.
struct ChildRun: Sendable {
    var status: Int32
    var reason: Process.TerminationReason
    /// Standard output, with standard error when it was captured too.
    var text: String
}

extension Process {
    /// Runs the process to its end on a thread of its own, reading its
    /// standard output (and standard error, with `includingErrors`) as it
    /// goes, so that neither a full pipe nor the wait holds one of the two
    /// threads Swift Testing runs every test on: a test waiting for a child
    /// that way stalled other tests' awaits for the child's whole run.
    ///
    /// - Throws: when the process cannot start, or has not ended within
    ///   `seconds` (it is killed then).
    func runToEnd(includingErrors: Bool = false, within seconds: Double = 300) async throws -> ChildRun {
        let pipe = Pipe()
        standardOutput = pipe
        if includingErrors { standardError = pipe }
        let process = self
        let run = try await finishingOnThread(within: seconds) { () throws -> ChildRun in
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return ChildRun(status: process.terminationStatus, reason: process.terminationReason, text: String(decoding: data, as: UTF8.self))
        }
        guard let run else {
            if isRunning { kill(processIdentifier, SIGKILL) }
            throw ChildTimeout(arguments: arguments ?? [], seconds: seconds)
        }
        return run
    }
}

/// A child process that did not end in time.
struct ChildTimeout: Error, CustomStringConvertible {
    let arguments: [String]
    let seconds: Double
    var description: String { "\(arguments.joined(separator: " ")) did not end within \(seconds) s" }
}
