import BookmarksCore
import Foundation
import LiteRecord
import Testing

/// The built `bookmarks-server` binary, end to end: it binds 127.0.0.1 on a
/// port the system picks, serves, and on SIGTERM finishes the request in
/// flight, closes the stack and exits 0.
@Suite struct ServerProcessTests {
    /// The binary `swift build` put beside the test bundle.
    static func binary(_ name: String = "bookmarks-server") throws -> URL {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/debug").standardized,
        ]
        for folder in candidates {
            let url = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw RawError("\(name) is not built (looked in \(candidates.map(\.path))); run swift build --build-tests")
    }

    /// A running server; `stop()` sends SIGTERM and waits for the exit.
    final class Server: @unchecked Sendable {
        let process = Process()
        let output = Pipe()
        private(set) var port = 0
        private let exited = DispatchSemaphore(value: 0)

        convenience init(store: URL, arguments: [String] = [], environment: [String: String] = [:]) throws {
            try self.init(binary: "bookmarks-server", arguments: ["--port", "0", "--store", store.path] + arguments, environment: environment)
        }

        init(binary: String, arguments: [String], environment: [String: String] = [:]) throws {
            process.executableURL = try ServerProcessTests.binary(binary)
            process.arguments = arguments
            if !environment.isEmpty {
                process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            }
            process.standardOutput = output
            process.terminationHandler = { [exited] _ in exited.signal() }
            try process.run()
        }

        /// Waits (at most 60 s) for "listening on 127.0.0.1:PORT".
        func waitUntilListening() async throws {
            let handle = output.fileHandleForReading
            // A server that never says so (or writes into a buffer) would block
            // the read below for good: kill it after 60 s, which ends the read.
            let listening = NSLock()
            nonisolated(unsafe) var heard = false
            let process = process
            DispatchQueue.global().asyncAfter(deadline: .now() + 60) {
                listening.withLock { if !heard { kill(process.processIdentifier, SIGKILL) } }
            }
            defer { listening.withLock { heard = true } }
            let line: String = try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async {
                    var text = ""
                    let deadline = Date().addingTimeInterval(60)
                    while Date() < deadline {
                        let data = handle.availableData
                        if data.isEmpty { break }
                        text += String(decoding: data, as: UTF8.self)
                        if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) {
                            continuation.resume(returning: String(line))
                            return
                        }
                    }
                    continuation.resume(throwing: RawError("the server did not say it was listening: \(text)"))
                }
            }
            guard let port = line.split(separator: ":").last.flatMap({ Int($0) }), line.hasPrefix("listening on 127.0.0.1:") else {
                throw RawError("unexpected line: \(line)")
            }
            self.port = port
        }

        func terminate() { kill(process.processIdentifier, SIGTERM) }

        /// Waits (at most `seconds`) for the exit; kills it if it does not come.
        func waitForExit(seconds: Int = 30) async -> Int32? {
            let exited = self.exited
            let inTime: Bool = await withCheckedContinuation { continuation in
                DispatchQueue.global().async { continuation.resume(returning: exited.wait(timeout: .now() + .seconds(seconds)) == .success) }
            }
            if !inTime {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                return nil
            }
            return process.terminationStatus
        }

        func remainingOutput() -> String {
            String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
    }

    static func request(_ method: String, _ path: String, body: String = "", headers: String = "") -> String {
        "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\n\(headers)Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    static func status(_ response: String) -> Int? {
        response.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) }
    }

    @Test(.timeLimit(.minutes(3)))
    func servesThenShutsDownGracefullyOnSIGTERM() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let server = try Server(store: temporary.url)
        do {
            try await server.waitUntilListening()
        } catch {
            server.process.terminate()
            _ = await server.waitForExit(seconds: 10)
            throw error
        }
        let port = server.port

        let health = try RawConnection(port: port)
        try await health.send(Self.request("GET", "/health"))
        #expect(Self.status(try await health.read()) == 200)

        var created: [Int64] = []
        for index in 0..<5 {
            let connection = try RawConnection(port: port)
            try await connection.send(Self.request("POST", "/bookmarks", body: #"{"url": "https://\#(index).example", "title": "T\#(index)", "folder": "F", "tags": ["e2e"]}"#))
            let response = try await connection.read()
            #expect(Self.status(response) == 201, "\(response)")
            if let body = response.components(separatedBy: "\r\n\r\n").last,
               let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
               let id = object["id"] as? Int {
                created.append(Int64(id))
            }
        }
        #expect(created.count == 5)

        // An import in flight at SIGTERM: its head and half its body are sent
        // before the signal, the rest after. It must still be answered, and
        // stored.
        let items = (0..<200).map { #"{"url": "https://import-\#($0).example", "title": "I\#($0)", "folder": "Imported"}"# }
        let importBody = "[" + items.joined(separator: ",") + "]"
        let inFlight = try RawConnection(port: port)
        let full = Self.request("POST", "/import", body: importBody)
        let half = full.utf8.count - importBody.utf8.count / 2
        try await inFlight.send(Data(full.utf8.prefix(half)))
        // An event stream open at SIGTERM ends with the shutdown.
        let events = try RawConnection(port: port)
        try await events.send("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        try await events.read { $0.contains("event: snapshot") }
        // Let the server accept the connection and parse the import's head
        // before the signal (generous: the machine may be busy).
        try await Task.sleep(for: .seconds(1))

        server.terminate()
        try await Task.sleep(for: .milliseconds(200))
        try await inFlight.send(Data(full.utf8.dropFirst(half)))
        let imported = try await inFlight.read()
        #expect(Self.status(imported) == 200, "\(imported)")
        #expect(imported.contains(#""inserted":200"#), "\(imported)")
        let stream = try await events.read()
        #expect(stream.hasPrefix("HTTP/1.1 200"))

        let status = await server.waitForExit()
        #expect(status == 0)
        #expect(server.remainingOutput().contains("store closed"))

        // Everything acknowledged is in the store, which closed cleanly.
        let stack = try temporary.openStack()
        defer { try? stack.close() }
        let store = BookmarkStore(stack: stack)
        #expect(try await store.counts() == StoreCounts(bookmarks: 205, folders: 2, tags: 1))
        for id in created {
            #expect(try await store.bookmark(id).id == id)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func refusesAStoreItCannotOpen() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notAStore = temporary.folder.appendingPathComponent("garbage.sqlite")
        try Data(repeating: 0x41, count: 4096).write(to: notAStore)
        let server = try Server(store: notAStore)
        let status = await server.waitForExit()
        #expect(status == 1)
        #expect(try Data(contentsOf: notAStore) == Data(repeating: 0x41, count: 4096))
    }
}
