import Foundation
import Testing

/// The executables the build puts next to the test bundle, which process
/// tests start as children: `literecord` (the CLI, only what users run) and
/// `LiteRecordTestChild` (Package.swift), the commands only tests run.
enum BuiltExecutables {
    /// The executable `name` in the build folder: next to the test bundle, or
    /// up to two folders above it.
    static func url(_ name: String) -> URL? {
        var folder = testBundleFolder
        for _ in 0..<3 {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }

    /// The folder the test bundle was built into. On Linux the tests run as
    /// the bundle itself (`LiteRecordPackageTests.xctest`), so it is the
    /// program's folder; on macOS the program is Xcode's `xctest`, and the
    /// bundle is the one holding this code's classes.
    private static var testBundleFolder: URL {
        #if os(Linux)
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        #else
        Bundle(for: BundleMarker.self).bundleURL.deletingLastPathComponent()
        #endif
    }

    /// `LiteRecordTestChild`, the child side of the tests that need one of
    /// their own.
    static func testChild() throws -> URL {
        try #require(url("LiteRecordTestChild"), "build the LiteRecordTestChild target first (swift build --build-tests)")
    }
}

#if !os(Linux)
/// A class of the test bundle, to find the bundle by.
private final class BundleMarker {}
#endif
