import ArgumentParser
import Foundation
import LiteRecord

/// How the commands that read a store end when they cannot: one line on
/// standard error naming the file and the problem, and an exit status that
/// tells a script which kind of failure it was.
enum Failure {
    /// The store has a problem: damaged, not a database, failed its checks.
    static let storeProblem: Int32 = 1
    /// The command could not run: no such file, a folder, no permission.
    static let couldNotRun: Int32 = 2

    /// Prints `error` as one line on standard error and returns the exit code
    /// to throw.
    static func report(_ command: String, _ error: any Error) -> ExitCode {
        let kind = (error as? LiteRecordError)?.kind
        let code = kind == .corruptStore || kind == .modelMismatch || kind == .decodingFailed ? storeProblem : couldNotRun
        return report(command, error.message, code: code)
    }

    /// Prints `message` as one line on standard error and returns `code`.
    static func report(_ command: String, _ message: String, code: Int32) -> ExitCode {
        let line = message.split(whereSeparator: \.isNewline).joined(separator: "; ")
        FileHandle.standardError.write(Data("literecord \(command): \(line)\n".utf8))
        return ExitCode(code)
    }
}
