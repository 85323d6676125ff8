import BookmarksCore
import Foundation
import Testing

/// Docs/Server.md opens with a complete service. Its `main.swift` block is
/// the `todos-server` target's source, byte for byte (so it compiles as
/// printed), its manifest compiles and names every module that source
/// imports, and the built service answers its three routes.
@Suite struct ServerGuideTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../..").standardized

    /// The fenced ```swift blocks of Docs/Server.md, in order.
    static func swiftBlocks() throws -> [String] {
        let text = try String(contentsOf: root.appendingPathComponent("Docs/Server.md"), encoding: .utf8)
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n") + "\n")
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    @Test func theGuidesServiceIsTheCompiledOne() throws {
        let blocks = try Self.swiftBlocks()
        let source = try String(contentsOf: Self.root.appendingPathComponent("Examples/Bookmarks/Sources/todos-server/main.swift"), encoding: .utf8)
        #expect(blocks.count >= 2)
        #expect(blocks.dropFirst().first == source, "Docs/Server.md's second swift block differs from Sources/todos-server/main.swift")
    }

    @Test func theGuidesManifestNamesEveryImportedModule() throws {
        let manifest = try #require(try Self.swiftBlocks().first)
        #expect(manifest.hasPrefix("// swift-tools-version:"))
        let source = try String(contentsOf: Self.root.appendingPathComponent("Examples/Bookmarks/Sources/todos-server/main.swift"), encoding: .utf8)
        let imports = source.split(separator: "\n").filter { $0.hasPrefix("import ") }.map { String($0.dropFirst(7)) }
        for module in imports where module != "Foundation" {
            #expect(manifest.contains(".product(name: \"\(module)\""), "the manifest does not name \(module)")
        }
        for package in ["hummingbird-project/hummingbird", "swift-server/swift-service-lifecycle", "apple/swift-log",
                        "path: \"../LiteRecord\"", "Integrations/HummingbirdLiteRecord"] {
            #expect(manifest.contains(package), "the manifest does not name \(package)")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func theGuidesManifestCompiles() async throws {
        // `swift package dump-package` compiles and evaluates the manifest
        // without fetching its dependencies: the block as printed, in a
        // package folder of its own.
        let manifest = try #require(try Self.swiftBlocks().first)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("server-guide-\(UUID().uuidString)/Todos")
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("Sources/todos-server"), withIntermediateDirectories: true)
        try manifest.write(to: folder.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        let (status, output) = try await ReadmeCurlTests.shell("cd '\(folder.path)' && swift package dump-package")
        #expect(status == 0, "\(output)")
        #expect(output.contains("\"todos-server\""), "\(output)")
    }

    @Test(.timeLimit(.minutes(1)))
    func theGuidesServiceCreatesListsAndDeletes() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let server = try ServerProcessTests.Server(binary: "todos-server", arguments: [temporary.folder.appendingPathComponent("todos.sqlite").path, "0"])
        try await server.waitUntilListening()
        func send(_ request: String) async throws -> String {
            let connection = try RawConnection(port: server.port)
            try await connection.send(request)
            return try await connection.read()
        }
        let created = try await send(ServerProcessTests.request("POST", "/todos", body: #"{"title": "Write the docs"}"#))
        #expect(ServerProcessTests.status(created) == 201, "\(created)")
        #expect(created.contains("\"id\":1"), "\(created)")
        #expect(created.contains("\r\nLocation: /todos/1\r\n") || created.contains("\r\nlocation: /todos/1\r\n"), "\(created)")
        let crossSite = #"{"title": "Cross"}"#
        let plain = try await send("POST /todos HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: \(crossSite.utf8.count)\r\n\r\n\(crossSite)")
        #expect(ServerProcessTests.status(plain) == 415, "\(plain)")
        let listed = try await send(ServerProcessTests.request("GET", "/todos"))
        #expect(listed.contains("Write the docs"))
        #expect(!listed.contains("Cross"))
        let head = try await send("HEAD /todos HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(ServerProcessTests.status(head) == 200, "\(head)")
        let wrongMethod = try await send(ServerProcessTests.request("PUT", "/todos"))
        #expect(ServerProcessTests.status(wrongMethod) == 405)
        #expect(wrongMethod.lowercased().contains("\r\nallow: get, head, post\r\n"), "\(wrongMethod)")
        #expect(ServerProcessTests.status(try await send(ServerProcessTests.request("DELETE", "/todos/1"))) == 204)
        #expect(ServerProcessTests.status(try await send(ServerProcessTests.request("DELETE", "/todos/1"))) == 404)
        server.terminate()
        #expect(await server.waitForExit() == 0)
    }

    /// A handler's `context` is the request's; a `stack.read`/`write`
    /// closure inside it that names its own parameter `context` hides it,
    /// and a reader copying the guide gets the wrong one.
    @Test func theGuidesStoreClosuresDoNotShadowTheHandlersContext() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("Docs/Server.md"), encoding: .utf8)
        var blocks = try Self.swiftBlocks()
        // The guide's indented blocks (inside a list) count too.
        blocks += text.components(separatedBy: "  ```swift\n").dropFirst().compactMap { $0.components(separatedBy: "  ```").first }
        for block in blocks where block.contains("stack.write { context in") || block.contains("stack.read { context in") {
            #expect(!block.contains(", context ->") && !block.contains(", context in"),
                    "a Docs/Server.md block shadows the handler's context:\n\(block)")
        }
        let history = try String(contentsOf: Self.root.appendingPathComponent("Docs/History.md"), encoding: .utf8)
        for name in ["[String: SQLValue]", ".null", ".integer(Int64)", ".real(Double)", ".text(String)", ".blob(Data)"] {
            #expect(history.contains(name), "Docs/History.md does not say what a tombstone holds: \(name)")
        }
        #expect(text.contains("migration: .automatic, history: .enabled"), "Docs/Server.md never opens a stack with both")
    }
}
