import BookmarksCore
import Foundation
import Testing

/// The README's `curl` lines, run as printed (only the port changed) in
/// their order against the built server on a fresh store: each exits 0 and
/// answers below 400.
@Suite struct ReadmeCurlTests {
    static func curlLines() throws -> [String] {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../README.md").standardized
        let text = try String(contentsOf: readme, encoding: .utf8)
        return text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("curl ") }
    }

    @Test func theReadmeHasCurlLinesForEveryKindOfRoute() throws {
        let lines = try Self.curlLines()
        for needle in ["-X PUT", "-X PATCH", "-X DELETE", "If-None-Match", "/import", "/events", "/metrics", "/changes"] {
            #expect(lines.contains { $0.contains(needle) }, "no curl line with \(needle)")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func everyCurlLineWorksAsPrinted() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") else {
            Issue.record("curl is missing: make example-server installs it")
            return
        }
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let server = try ServerProcessTests.Server(store: temporary.url)
        try await server.waitUntilListening()
        for line in try Self.curlLines() {
            let command = "curl --max-time 20 " + line.dropFirst(5).replacingOccurrences(of: "localhost:8080", with: "127.0.0.1:\(server.port)")
            let (status, output) = try await Self.shell(command)
            #expect(status == 0, "\(line)\n\(output)")
            if output.hasPrefix("HTTP/1.1 ") {
                let code = output.split(separator: " ", maxSplits: 2)[1]
                #expect((Int(code) ?? 999) < 400, "\(line)\n\(output)")
            } else {
                #expect(!output.contains("\"error\""), "\(line)\n\(output)")
            }
        }
        server.terminate()
        #expect(await server.waitForExit() == 0)
    }

    /// Runs `command` with `/bin/sh -c`, off the cooperative pool.
    static func shell(_ command: String) async throws -> (Int32, String) {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/bin/sh")
                process.arguments = ["-c", command]
                let pipe = Pipe()
                process.standardOutput = pipe
                process.standardError = pipe
                do {
                    try process.run()
                    let data = pipe.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    continuation.resume(returning: (process.terminationStatus, String(decoding: data, as: UTF8.self)))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
