import Foundation
import Hummingbird
import HummingbirdTesting
import LiteRecord
import HummingbirdLiteRecord
import Logging
import Synchronization
import Testing

/// The entity the integration's tests store.
@Entity
final class Todo {
    @Attribute(.unique) var title = ""
    var done = false

    init() {}
}

/// A store file in a folder of its own under the temporary directory.
struct TemporaryStore {
    let folder: URL
    var url: URL { folder.appendingPathComponent("Todos.sqlite") }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("literecord-hummingbird-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func openStack() throws -> RecordStack {
        try RecordStack(storeAt: url, entities: [Todo.self], migration: .automatic)
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}

/// Every log line, for tests that check what a 500 logs.
final class CapturedLog: Sendable {
    let lines = Mutex<[String]>([])

    var text: String { lines.withLock { $0.joined(separator: "\n") } }

    func logger() -> Logger {
        Logger(label: "test") { _ in Handler(log: self) }
    }

    struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let text = "\(event.level) \(event.message) \(metadata.merging(event.metadata ?? [:]) { $1 })"
            log.lines.withLock { $0.append(text) }
        }
    }
}

/// The error message of an error body: `{"error":{"message":…}}`; `nil` when
/// the body is not that shape.
func errorMessage(_ response: TestResponse) -> String? {
    struct Body: Decodable { struct Inner: Decodable { var message: String }; var error: Inner }
    return (try? JSONDecoder().decode(Body.self, from: Data(response.body.readableBytesView)))?.error.message
}
