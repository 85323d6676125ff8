public import Foundation

/// Finds where a store file lives, the way MagicalRecord did: an existing file
/// in Documents wins (where Documents is searched: see
/// ``searchesDocuments``), then an existing file in Application Support/<app>,
/// and otherwise the Application Support location is where a new store goes.
///
/// ```swift
/// let locator = StoreLocator()
/// let (url, source) = locator.resolve(storeNamed: "Notes")
/// print(url.path, source)   // …/.local/share/MyTool/Notes.sqlite applicationSupport
/// ```
///
/// On Linux, Documents is `~/Documents` and Application Support is
/// `$XDG_DATA_HOME` or `~/.local/share`, as `FileManager` reports them. Every
/// directory can be injected, which is what tests should do.
public struct StoreLocator: Sendable {
    /// Which rule chose a store's location.
    public enum Source: String, Sendable, CustomStringConvertible {
        /// An existing file in the Documents directory.
        case documents
        /// An existing file in Application Support/<applicationName>.
        case applicationSupport
        /// No existing file: the default location in Application Support.
        case `default`

        public var description: String { rawValue }
    }

    /// Where ``applicationName`` came from.
    public enum ApplicationNameSource: String, Sendable, CustomStringConvertible {
        /// Given to ``init(applicationName:documentsDirectory:applicationSupportDirectory:)``.
        case explicit
        /// The main bundle's identifier.
        case bundleIdentifier
        /// The running executable's name: it changes when the binary is
        /// renamed, and with it the store's folder. Pin the name with
        /// `RecordStack.locator = StoreLocator(applicationName: "MyApp")`.
        case processName

        public var description: String {
            switch self {
            case .explicit: "given explicitly"
            case .bundleIdentifier: "the bundle identifier"
            case .processName: "the executable's name"
            }
        }
    }

    /// The application's name: the folder inside Application Support and the
    /// default store name. An explicit name wins, then the bundle identifier,
    /// then the process name.
    public let applicationName: String
    /// Which rule chose ``applicationName``.
    public let applicationNameSource: ApplicationNameSource
    /// The Documents directory, where an existing store wins over any other.
    public let documentsDirectory: URL
    /// The Application Support directory; stores go in its
    /// ``applicationName`` folder.
    public let applicationSupportDirectory: URL
    /// Whether an existing store in ``documentsDirectory`` wins, as
    /// MagicalRecord's first rule has it.
    ///
    /// `true` on Linux, on iOS and the other platforms whose Documents is the
    /// app's own container, in a sandboxed macOS app (its Documents is its
    /// container's too), and whenever a Documents directory is given to the
    /// initializer. `false` in an unsandboxed macOS app: there `~/Documents`
    /// is the user's, and looking into it makes the system ask the user for
    /// access, so such an app's stores live in Application Support only.
    /// Set it to choose otherwise:
    ///
    /// ```swift
    /// var locator = StoreLocator()
    /// locator.searchesDocuments = false   // Application Support only
    /// RecordStack.locator = locator
    /// ```
    public var searchesDocuments: Bool

    /// A locator for this process, with directories from `FileManager`.
    public init() {
        self.init(applicationName: nil, documentsDirectory: nil, applicationSupportDirectory: nil)
    }

    /// A locator with any of its inputs replaced, for tests or unusual layouts.
    public init(applicationName: String? = nil, documentsDirectory: URL? = nil, applicationSupportDirectory: URL? = nil) {
        if let applicationName {
            (self.applicationName, applicationNameSource) = (Self.sanitized(applicationName), .explicit)
        } else {
            let (name, source) = Self.defaultApplicationName
            (self.applicationName, applicationNameSource) = (Self.sanitized(name), source)
        }
        #if os(macOS)
        let onMacOS = true
        #else
        let onMacOS = false
        #endif
        searchesDocuments =
            documentsDirectory != nil
            || Self.searchesDocumentsByDefault(onMacOS: onMacOS, environment: ProcessInfo.processInfo.environment)
        #if os(Linux)
        // One home for both folders. Foundation takes Documents from the
        // password database but Application Support from $HOME, which with
        // HOME unset is /home/.local/share, a folder every user shares.
        let home = Self.linuxHome
        self.documentsDirectory = documentsDirectory ?? home.appendingPathComponent("Documents", isDirectory: true)
        self.applicationSupportDirectory = applicationSupportDirectory ?? Self.linuxDataHome(home: home)
        #else
        let fileManager = FileManager.default
        // `homeDirectoryForCurrentUser` is macOS-only; this is everywhere
        // (an iOS app's home is its container).
        let home = URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true)
        self.documentsDirectory =
            documentsDirectory
            ?? fileManager.urls(for: .documentDirectory, in: .userDomainMask).first
            ?? home.appendingPathComponent("Documents", isDirectory: true)
        self.applicationSupportDirectory =
            applicationSupportDirectory
            ?? fileManager.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? home.appendingPathComponent(".local/share", isDirectory: true)
        #endif
    }

    #if os(Linux)
    /// The user's home: `$HOME` when it names an absolute path, else the
    /// password database's entry for the user (what
    /// `homeDirectoryForCurrentUser` reads), never a folder outside it.
    static var linuxHome: URL {
        let environment = ProcessInfo.processInfo.environment
        if let home = environment["HOME"], home.hasPrefix("/") { return URL(fileURLWithPath: home, isDirectory: true) }
        return FileManager.default.homeDirectoryForCurrentUser
    }

    /// Application Support on Linux: `$XDG_DATA_HOME` when it names an
    /// absolute path (the XDG rule: a relative one is ignored), else
    /// `<home>/.local/share`.
    static func linuxDataHome(home: URL) -> URL {
        if let data = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return URL(fileURLWithPath: data, isDirectory: true)
        }
        return home.appendingPathComponent(".local/share", isDirectory: true)
    }
    #endif

    /// The default of ``searchesDocuments``: everywhere but in an
    /// unsandboxed macOS app (a sandboxed one has `APP_SANDBOX_CONTAINER_ID`
    /// in its environment).
    static func searchesDocumentsByDefault(onMacOS: Bool, environment: [String: String]) -> Bool {
        !onMacOS || environment["APP_SANDBOX_CONTAINER_ID"] != nil
    }

    /// Whether a store is at `url`: the file, or iCloud's placeholder for it
    /// (opening it then says that it is not downloaded, rather than creating
    /// an empty store elsewhere).
    private static func storeExists(at url: URL) -> Bool {
        let fileManager = FileManager.default
        return fileManager.fileExists(atPath: url.path) || fileManager.fileExists(atPath: StoreFileCreation.iCloudPlaceholder(of: url).path)
    }

    /// Bundle identifier, else the process name, else "LiteRecord".
    static var defaultApplicationName: (String, ApplicationNameSource) {
        if let identifier = Bundle.main.bundleIdentifier, !identifier.isEmpty { return (identifier, .bundleIdentifier) }
        let process = ProcessInfo.processInfo.processName
        return (process.isEmpty ? "LiteRecord" : process, .processName)
    }

    /// A name usable as one path component.
    private static func sanitized(_ name: String) -> String {
        let cleaned = name.replacingOccurrences(of: "/", with: "-").trimmingCharacters(in: .whitespaces)
        return cleaned.isEmpty || cleaned == "." || cleaned == ".." ? "LiteRecord" : cleaned
    }

    /// `name` with `.sqlite` added when it has no extension.
    public static func fileName(forStoreNamed name: String) -> String {
        (name as NSString).pathExtension.isEmpty ? name + ".sqlite" : name
    }

    /// The default store name: `<applicationName>.sqlite`, always — an
    /// application name is no file name, so a bundle identifier's last part
    /// (`com.acme.Notes`) is not taken for an extension.
    public var defaultStoreName: String { applicationName + ".sqlite" }

    /// The URL a store called `name` resolves to (see ``resolve(storeNamed:)``).
    public func url(forStoreNamed name: String) -> URL {
        resolve(storeNamed: name).url
    }

    /// Where a store called `name` is, and which rule chose it.
    ///
    /// A file iCloud Drive evicted counts as there (its placeholder,
    /// `.<file>.icloud`, is): opening it then fails with
    /// ``LiteRecordError/Kind/storeUnavailable`` saying it is not downloaded,
    /// instead of an empty store being created in the next place.
    public func resolve(storeNamed name: String) -> (url: URL, source: Source) {
        let file = Self.fileName(forStoreNamed: name)
        let inDocuments = documentsDirectory.appendingPathComponent(file, isDirectory: false)
        if searchesDocuments && Self.storeExists(at: inDocuments) { return (inDocuments, .documents) }
        let inSupport =
            applicationSupportDirectory
            .appendingPathComponent(applicationName, isDirectory: true)
            .appendingPathComponent(file, isDirectory: false)
        if Self.storeExists(at: inSupport) { return (inSupport, .applicationSupport) }
        return (inSupport, .default)
    }
}
