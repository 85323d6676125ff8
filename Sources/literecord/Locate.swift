import ArgumentParser
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
        let rule = switch source {
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
    }
}
