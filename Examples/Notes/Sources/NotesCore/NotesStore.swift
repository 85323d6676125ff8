public import Foundation
public import LiteRecord

/// Where the notes are kept, and opening them.
///
/// By default the store is `Notes.sqlite` where ``StoreLocator`` puts it for
/// the application "Notes" (on Linux `~/.local/share/Notes/Notes.sqlite`,
/// unless a `~/Documents/Notes.sqlite` exists). The name is pinned: left to
/// itself, `StoreLocator` would name the folder after the executable, and a
/// renamed binary would find a new, empty store. `--store PATH` or the
/// environment variable `NOTES_STORE` put the store elsewhere, which is what
/// tests and scripts do.
public enum NotesStore {
    public static let applicationName = "Notes"
    public static let storeName = "Notes.sqlite"
    public static let environmentVariable = "NOTES_STORE"

    /// The app's locator: `StoreLocator` with the application name pinned;
    /// the directories are injectable for tests.
    public static func locator(documentsDirectory: URL? = nil, applicationSupportDirectory: URL? = nil) -> StoreLocator {
        StoreLocator(
            applicationName: applicationName, documentsDirectory: documentsDirectory,
            applicationSupportDirectory: applicationSupportDirectory)
    }

    /// The store file asked for explicitly: the `--store` option, else
    /// `NOTES_STORE`; `nil` when neither is given (or both are empty).
    public static func explicitStore(option: String?, environment: [String: String]) -> URL? {
        for candidate in [option, environment[environmentVariable]] {
            if let path = candidate, !path.isEmpty { return URL(fileURLWithPath: path) }
        }
        return nil
    }

    /// Sets up the default stack on the notes store, migrating it if an
    /// earlier version of the app wrote it (and turning that version's tag
    /// strings into ``Tag``s), and returns its location.
    ///
    /// - Throws: `LiteRecordError` when the store cannot be opened.
    @MainActor @discardableResult
    public static func open(option: String?, environment: [String: String]) throws -> URL {
        RecordStack.locator = locator()
        if let url = explicitStore(option: option, environment: environment) {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try RecordStack.setupAutoMigrating(storeAt: url, entities: Notebook.entities)
            try Notebook.adoptLegacyTags()
            return url
        }
        try RecordStack.setupAutoMigrating(storeNamed: storeName, entities: Notebook.entities)
        try Notebook.adoptLegacyTags()
        return RecordStack.storeURL(forStoreNamed: storeName)
    }
}
