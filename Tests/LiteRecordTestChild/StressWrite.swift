import ArgumentParser
import Foundation
import LiteRecord

/// Writes notes one transaction at a time into a store that other processes
/// may be writing too: the multi-process tests drive it.
struct StressWrite: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stress-write",
        abstract: "Insert notes one transaction at a time (used by LiteRecord's tests).")

    @Argument var path: String
    @Option var rows = 100
    @Option var label = "writer"

    func run() async throws {
        let stack = try RecordStack(storeAt: URL(fileURLWithPath: path), entities: [Note.self])
        for index in 0..<rows {
            let title = "\(label)-\(index)"
            try await stack.write { context in context.insert(Note(title: title, stars: index)) }
        }
        try stack.close()
        print("wrote \(rows)")
    }
}
