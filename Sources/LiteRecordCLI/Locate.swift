import ArgumentParser
import Foundation
import LiteRecord

struct Locate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print where a store resolves to and which rule chose it.")

    @Argument(help: "The store's name; `.sqlite` is added when it has no extension. Defaults to <app>.sqlite.")
    var name: String?

    @Option(name: .long, help: "The application name (default: this process's name).")
    var app: String?

    func run() throws {
        let locator = StoreLocator(applicationName: app)
        let (url, source) = locator.resolve(storeNamed: name ?? locator.defaultStoreName)
        let rule =
            switch source {
            case .documents: "an existing file in Documents"
            case .applicationSupport: "an existing file in Application Support/\(locator.applicationName)"
            case .default: "no existing file; the default location in Application Support/\(locator.applicationName)"
            }
        print(url.path)
        print("rule: \(source) (\(rule))")
        if app == nil {
            // This tool's own name is never the application's: say what was assumed.
            print(
                "application name: \(locator.applicationName) (\(locator.applicationNameSource), assumed; "
                    + "pass --app NAME for your application's folder)")
        }
        if let problem = Self.problem(at: url) {
            throw Failure.report("locate", "\(url.path): \(problem.message)", code: problem.code)
        }
    }

    /// What is wrong with an existing file at the located path: a folder, an
    /// unreadable file, or bytes that are not a SQLite database.
    static func problem(at url: URL) -> (message: String, code: Int32)? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { return nil }
        if isFolder.boolValue { return ("a folder is in the store's place", Failure.couldNotRun) }
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            return ("the file cannot be read", Failure.couldNotRun)
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        // An empty file is a valid, empty database to SQLite.
        if header.isEmpty || header == Data("SQLite format 3\u{0}".utf8) { return nil }
        return ("the file is not a SQLite database", Failure.storeProblem)
    }
}
