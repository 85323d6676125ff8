import Foundation
import Testing

/// 1,000 open/save/close cycles in a process of its own (so that no other
/// test's files or memory blur the figures): no file descriptor and no
/// memory growth between the end of a 100-cycle warm-up and the end.
@Suite struct LifecycleTests {
    static let cycles = 1000

    /// Whether the child can report its descriptors and memory: it reads
    /// them from `/proc`, which only Linux has (elsewhere it prints -1, and
    /// comparing -1 with -1 would pass without measuring anything).
    static let measuresThroughProc: Bool = {
        #if os(Linux)
        true
        #else
        false
        #endif
    }()

    @Test(.enabled(if: measuresThroughProc, "descriptors and resident memory are read from /proc, which this platform lacks"))
    func openSaveCloseCyclesLeakNothing() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("lifecycle.sqlite")
        let output = try await Reliability.run(
            BuiltExecutables.testChild(), ["lifecycle", url.path, "--cycles", "\(Self.cycles)", "--warmup", "100"])
        try #require(output.status == 0, "\(output.standardError)")
        var figures: [String: [Double]] = [:]
        for line in output.standardOutput.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard let name = parts.first else { continue }
            figures[String(name)] = parts.dropFirst().compactMap { Double($0) }
        }
        let fds = try #require(figures["fds"], "\(output.standardOutput)")
        let rss = try #require(figures["rss_kb"], "\(output.standardOutput)")
        let rows = try #require(figures["rows"]?.first)
        try #require(fds.count == 2 && rss.count == 2)
        try #require(fds.allSatisfy { $0 > 0 } && rss.allSatisfy { $0 > 0 }, "the child measured nothing: \(output.standardOutput)")
        #expect(fds[1] == fds[0], "open descriptors went from \(fds[0]) to \(fds[1])")
        // A leak of 2 KiB per cycle would show as 1.8 MiB; allocator noise stays far below.
        #expect(rss[1] - rss[0] < 1536, "resident memory went from \(rss[0]) to \(rss[1]) KiB")
        #expect(rows == Double(Self.cycles))
        Reliability.report(
            "lifecycle: \(Self.cycles) open/save/close cycles, descriptors \(Int(fds[0])) → \(Int(fds[1])), resident memory \(Int(rss[0])) → \(Int(rss[1])) KiB after the 100-cycle warm-up, \(String(format: "%.2f", figures["ms_per_cycle"]?.first ?? 0)) ms per cycle, \(Int(rows)) rows"
        )
    }
}
