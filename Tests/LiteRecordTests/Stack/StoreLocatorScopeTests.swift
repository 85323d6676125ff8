import Foundation
import LiteRecordTesting
import Testing
import LiteRecord

/// A scoped default keeps the locator of the scope around it: inside `withDefault` and the test traits, stores set up by name
/// never land in the real `~/.local/share/<executable>/`.
@Suite struct StoreLocatorScopeTests {
    @Test func withDefaultStartsWithTheEnclosingLocator() throws {
        let folder = try TemporaryDirectory()
        let locator = StoreLocator(
            applicationName: "ScopeTest", documentsDirectory: folder.file("Documents"),
            applicationSupportDirectory: folder.file("Support"))
        try RecordStack.withDefault(nil) {
            RecordStack.locator = locator
            RecordStack.withDefault(nil) {
                #expect(RecordStack.locator.applicationSupportDirectory == locator.applicationSupportDirectory)
                #expect(RecordStack.storeURL(forStoreNamed: "Notes").path.hasPrefix(folder.url.path))
            }
            // Setting it inside changes nothing outside.
            RecordStack.withDefault(nil) { RecordStack.locator = StoreLocator(applicationName: "Other") }
            #expect(RecordStack.locator.applicationName == "ScopeTest")
            try RecordStack.setupInMemory(entities: [HandWrittenPerson.self])
            try RecordStack.cleanUp()
        }
    }

    @Test(.temporaryStore(entities: [HandWrittenPerson.self]))
    func aTemporaryStoreKeepsStoresSetUpByNameInItsFolder() throws {
        let folder = try #require(try RecordStack.current().storeURL).deletingLastPathComponent()
        try RecordStack.cleanUp()
        try RecordStack.setup(storeNamed: "Named", entities: [HandWrittenPerson.self])
        let url = try #require(try RecordStack.current().storeURL)
        #expect(url.path.hasPrefix(folder.path))
        #expect(RecordStack.storeURL(forStoreNamed: "Named") == url)
    }
}
