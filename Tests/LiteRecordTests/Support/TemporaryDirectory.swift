import Foundation

/// A unique folder under the system temp directory, removed with everything
/// in it when the value is released.
final class TemporaryDirectory {
    let url: URL

    /// The folder test files go in: `$TMPDIR` when it is an absolute path
    /// (`make test` points it at a private folder and checks that nothing is
    /// left there), else Foundation's temporary directory, which on macOS
    /// ignores `TMPDIR`.
    static var root: URL {
        if let folder = ProcessInfo.processInfo.environment["TMPDIR"], folder.hasPrefix("/") {
            return URL(fileURLWithPath: folder, isDirectory: true)
        }
        return FileManager.default.temporaryDirectory
    }

    init(_ label: String = #function) throws {
        let safe = label.filter { $0.isLetter || $0.isNumber }
        url = Self.root
            .appendingPathComponent("LiteRecordTests-\(safe.prefix(40))-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name, isDirectory: false) }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Runs `body` with a fresh ``TemporaryDirectory``, removed when `body`
/// returns or throws.
func withTemporaryDirectory<T>(_ function: String = #function, _ body: (URL) throws -> T) throws -> T {
    let directory = try TemporaryDirectory(function)
    return try withExtendedLifetime(directory) { try body(directory.url) }
}
