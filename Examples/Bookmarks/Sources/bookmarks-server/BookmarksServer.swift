import ArgumentParser
import BookmarksCore
import Foundation
import Hummingbird
import LiteRecord
import Logging
import ServiceLifecycle

/// `bookmarks-server --port P --store PATH`: serves the bookmarks API on
/// 127.0.0.1 until SIGTERM or SIGINT, then stops accepting connections,
/// finishes the requests in flight, closes the stack and exits 0.
@main
struct BookmarksServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bookmarks-server",
        abstract: "Serve bookmarks over HTTP from a LiteRecord store.",
        discussion: """
            The store is Bookmarks.sqlite where StoreLocator puts it for the \
            application "Bookmarks" (on Linux ~/.local/share/Bookmarks), unless \
            --store names a file. --port 0 picks a free port; the line \
            "listening on 127.0.0.1:PORT" on standard output says which.
            """
    )

    @Option(help: "The TCP port (0: any free port).") var port = 8080
    @Option(help: "The address to bind.") var host = "127.0.0.1"
    @Option(help: "The store file (default: Bookmarks.sqlite where StoreLocator puts it).") var store: String?

    func run() async throws {
        let url: URL
        if let store, !store.isEmpty {
            url = URL(fileURLWithPath: store)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        } else {
            url = StoreLocator(applicationName: "Bookmarks").url(forStoreNamed: "Bookmarks.sqlite")
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        let stack: RecordStack
        do {
            stack = try RecordStack(storeAt: url, entities: BookmarksModel.entities, migration: .automatic)
        } catch let error as LiteRecordError {
            FileHandle.standardError.write(Data("bookmarks-server: \(error.message)\n".utf8))
            throw ExitCode.failure
        }
        let host = host
        let app = BookmarksApp.makeApplication(stack: stack, host: host, port: port) { port in
            // Unbuffered: a script or test waits for this line.
            FileHandle.standardOutput.write(Data("listening on \(host):\(port)\n".utf8))
        }
        var logger = Logger(label: "bookmarks-server")
        logger.logLevel = .notice
        let group = ServiceGroup(
            configuration: .init(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        )
        do {
            try await group.run()
        } catch {
            try? stack.close()
            throw error
        }
        // Every request has finished: nothing uses the stack any more.
        try stack.close()
        FileHandle.standardOutput.write(Data("stopped; store closed\n".utf8))
    }
}
