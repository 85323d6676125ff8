import ArgumentParser
import Foundation
import LiteRecord

/// Reads one note, optionally waits for a line on standard input, then
/// changes its stars and saves: the other half of the multi-process conflict
/// tests, which drive it. Exits with status 3 when the save
/// meets a conflict.
struct EditNote: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit-note",
        abstract: "Change one note's stars (used by LiteRecord's tests).")

    @Argument var path: String
    @Option var title: String
    @Option var stars: Int
    @Flag(help: "Wait for a line on standard input between reading and saving.") var wait = false

    func run() async throws {
        let stack = try RecordStack(storeAt: URL(fileURLWithPath: path), entities: [Note.self])
        defer { try? stack.close() }
        let context = stack.newContext()
        guard let note = try Note.findFirst(byAttribute: "title", withValue: title, in: context) else {
            print("no note titled \(title)")
            throw ExitCode(2)
        }
        // Unbuffered, so that a test waiting for it sees it before this waits.
        FileHandle.standardOutput.write(Data("read\n".utf8))
        if wait { _ = readLine() }
        note.stars = stars
        do {
            try context.save()
            print("saved")
        } catch let error as LiteRecordError where error.kind == .conflict {
            print(error.message)
            throw ExitCode(3)
        }
    }
}
