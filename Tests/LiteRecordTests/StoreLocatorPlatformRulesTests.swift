import Foundation
import Testing
@testable import LiteRecord

/// Where Documents is searched (not in an unsandboxed macOS app, whose
/// `~/Documents` is the user's and asks for access) and what a store iCloud
/// Drive evicted counts as (there, not downloaded: never an empty store in
/// its place).
@Suite struct StoreLocatorPlatformRulesTests {
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
