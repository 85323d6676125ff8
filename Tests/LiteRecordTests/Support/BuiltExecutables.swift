import Foundation
import Testing

/// The executables the build puts next to the test bundle, which process
/// tests start as children: `literecord` (the CLI, with hidden commands for
/// tests) and `LiteRecordTestChild` (Package.swift).
enum BuiltExecutables {
    /// The executable `name` in the build folder: next to the test bundle, or
    /// up to two folders above it.
    static func url(_ name: String) -> URL? {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }

    /// `LiteRecordTestChild`, the child side of the tests that need one of
    /// their own.
    static func testChild() throws -> URL {
        try #require(url("LiteRecordTestChild"), "build the LiteRecordTestChild target first (swift build --build-tests)")
    }
}
