import Foundation
import Testing
@testable import LiteRecord

@Suite struct StoreLocatorTests {
    let folder: TemporaryDirectory
    let locator: StoreLocator

    init() throws {
        folder = try TemporaryDirectory()
        locator = StoreLocator(
            applicationName: "MyApp", documentsDirectory: folder.file("Documents"),
            applicationSupportDirectory: folder.file("Application Support"))
    }

    private func touch(_ url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data().write(to: url)
    }

    @Test func theApplicationNameSaysWhereItCameFrom() {
        #expect(locator.applicationNameSource == .explicit)
        // Tests run without a bundle identifier: the name is the executable's,
        // which is what makes a renamed binary look for another store.
        let assumed = StoreLocator()
        #expect(assumed.applicationNameSource == .processName)
        #expect(assumed.applicationName == ProcessInfo.processInfo.processName)
    }

    @Test func defaultIsApplicationSupportOfTheApp() {
        let (url, source) = locator.resolve(storeNamed: "Notes.sqlite")
        #expect(source == .default)
        #expect(url == folder.file("Application Support/MyApp/Notes.sqlite"))
    }

    @Test func existingFileInApplicationSupportIsFound() throws {
        try touch(folder.file("Application Support/MyApp/Notes.sqlite"))
        let (url, source) = locator.resolve(storeNamed: "Notes.sqlite")
        #expect(source == .applicationSupport)
        #expect(url == folder.file("Application Support/MyApp/Notes.sqlite"))
    }

    @Test func existingFileInDocumentsWins() throws {
        try touch(folder.file("Application Support/MyApp/Notes.sqlite"))
        try touch(folder.file("Documents/Notes.sqlite"))
        let (url, source) = locator.resolve(storeNamed: "Notes.sqlite")
        #expect(source == .documents)
        #expect(url == folder.file("Documents/Notes.sqlite"))
    }

    @Test func nameWithoutExtensionGetsSqlite() {
        #expect(locator.url(forStoreNamed: "Notes").lastPathComponent == "Notes.sqlite")
        #expect(locator.url(forStoreNamed: "Notes.db").lastPathComponent == "Notes.db")
        #expect(locator.defaultStoreName == "MyApp.sqlite")
    }

    /// An app's name is its bundle identifier: its last part is no file
    /// extension, so the default store is `com.acme.Notes.sqlite` (it was
    /// `com.acme.Notes`, without `.sqlite`).
    @Test func aBundleIdentifierIsNoFileExtension() {
        let app = StoreLocator(
            applicationName: "com.acme.Notes", documentsDirectory: folder.file("Documents"),
            applicationSupportDirectory: folder.file("Support"))
        #expect(app.defaultStoreName == "com.acme.Notes.sqlite")
        #expect(app.url(forStoreNamed: app.defaultStoreName) == folder.file("Support/com.acme.Notes/com.acme.Notes.sqlite"))
    }

    @Test func applicationNameDefaultsToTheProcess() {
        let defaults = StoreLocator()
        #expect(!defaults.applicationName.isEmpty)
        #expect(!defaults.applicationName.contains("/"))
        #expect(StoreLocator(applicationName: "a/b").applicationName == "a-b")
    }

    /// With HOME set (as here), the folders are Foundation's own; the rule
    /// without HOME is `CLITests.withoutHomeTheStoreStaysInTheUsersHome`.
    @Test func linuxDirectoriesAreFoundationsWhenHomeIsSet() throws {
        try #require(ProcessInfo.processInfo.environment["HOME"]?.hasPrefix("/") == true)
        let defaults = StoreLocator(applicationName: "X")
        let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
        #expect(defaults.applicationSupportDirectory.standardizedFileURL.path == support?.standardizedFileURL.path)
        let home = try #require(ProcessInfo.processInfo.environment["HOME"])
        #expect(defaults.documentsDirectory.standardizedFileURL.path == URL(fileURLWithPath: home).appendingPathComponent("Documents").path)
    }

    // Where Documents is searched (not in an unsandboxed macOS app, whose
    // `~/Documents` is the user's and asks for access) and what a store
    // iCloud Drive evicted counts as (there, not downloaded: never an empty
    // store in its place).

    @Test func documentsAreSearchedExceptInAnUnsandboxedMacApp() {
        #expect(StoreLocator.searchesDocumentsByDefault(onMacOS: false, environment: [:]))
        #expect(!StoreLocator.searchesDocumentsByDefault(onMacOS: true, environment: [:]))
        #expect(StoreLocator.searchesDocumentsByDefault(onMacOS: true, environment: ["APP_SANDBOX_CONTAINER_ID": "com.acme.Notes"]))
        #if os(Linux)
        #expect(StoreLocator().searchesDocuments, "Linux keeps MagicalRecord's Documents-first rule")
        #endif
        #expect(locator.searchesDocuments, "a Documents directory given to the locator is searched")
    }

    @Test func aLocatorThatDoesNotSearchDocumentsIgnoresAStoreThere() throws {
        try touch(folder.file("Documents/Notes.sqlite"))
        var applicationSupportOnly = locator
        applicationSupportOnly.searchesDocuments = false
        let (url, source) = applicationSupportOnly.resolve(storeNamed: "Notes")
        #expect(source == .default)
        #expect(url == folder.file("Application Support/MyApp/Notes.sqlite"))
        #expect(locator.resolve(storeNamed: "Notes").source == .documents)
    }

    @Test func anEvictedStoreIsFoundWhereItsPlaceholderIs() throws {
        try touch(folder.file("Documents/.Notes.sqlite.icloud"))
        let (url, source) = locator.resolve(storeNamed: "Notes")
        #expect(source == .documents)
        #expect(url == folder.file("Documents/Notes.sqlite"))

        try touch(folder.file("Application Support/MyApp/.Drafts.sqlite.icloud"))
        #expect(locator.resolve(storeNamed: "Drafts").source == .applicationSupport)
    }

    @Test func openingAnEvictedStoreSaysSoAndCreatesNothing() throws {
        let placeholder = folder.file("Documents/.Notes.sqlite.icloud")
        try touch(placeholder)
        let url = locator.url(forStoreNamed: "Notes")
        let error = try #require(throws: LiteRecordError.self) {
            try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
        }
        #expect(error.kind == .storeUnavailable)
        #expect(error.message.contains("not downloaded") && error.message.contains(".Notes.sqlite.icloud"), "\(error.message)")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.file("Documents").path)
        #expect(left == [".Notes.sqlite.icloud"], "nothing but the placeholder")
    }
}
