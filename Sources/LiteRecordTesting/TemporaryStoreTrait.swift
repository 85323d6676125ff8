public import LiteRecord
public import Testing
public import Foundation

/// Gives every test case its own store file in a unique temporary folder,
/// installed as the default stack; the folder is deleted afterwards with the
/// store and its `-wal`/`-shm` files. Use it when file behaviour matters
/// (reopening, WAL, migration).
///
/// ```swift
/// @Test(.temporaryStore(entities: [Person.self]))
/// func survivesReopen() throws {
///     let url = try #require(try RecordStack.current().storeURL)
///     …
/// }
/// ```
public struct TemporaryStoreTrait: TestTrait, SuiteTrait, TestScoping {
    let entities: [any Entity.Type]

    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> TemporaryStoreTrait? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let folder = try TemporaryStoreFolder()
        defer { folder.remove() }
        let stack = try RecordStack(storeAt: folder.storeURL, entities: entities)
        // Close before the folder goes, so SQLite has checkpointed and let go of
        // the -wal and -shm files.
        defer { try? stack.close() }
        try await RecordStack.withDefault(stack) {
            // Stores the test sets up by name (`setup(storeNamed:)` after a
            // `cleanUp()`) go in the folder too, and leave with it.
            RecordStack.locator = folder.locator(applicationName: RecordStack.locator.applicationName)
            // Also closes a stack the test set up itself after a cleanUp().
            defer { try? RecordStack.cleanUp() }
            try await function()
        }
    }
}

extension Trait where Self == TemporaryStoreTrait {
    /// A fresh store file of `entities` in a unique temporary folder for each
    /// test case, as the default stack; removed afterwards.
    public static func temporaryStore(entities: [any Entity.Type]) -> Self {
        TemporaryStoreTrait(entities: entities)
    }
}

/// A unique folder under the temporary directory holding one test store.
public struct TemporaryStoreFolder: Sendable {
    /// The folder; every file in it is removed by ``remove()``.
    public let url: URL
    /// `Store.sqlite` inside the folder.
    public var storeURL: URL { url.appendingPathComponent("Store.sqlite", isDirectory: false) }

    /// Creates the folder.
    ///
    /// - Throws: when the temporary directory is not writable.
    public init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("LiteRecordTesting-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A locator whose Documents and Application Support directories are
    /// inside the folder, so that a store set up by name stays in it.
    ///
    /// ```swift
    /// RecordStack.locator = folder.locator(applicationName: "MyApp")
    /// ```
    public func locator(applicationName: String) -> StoreLocator {
        StoreLocator(
            applicationName: applicationName,
            documentsDirectory: url.appendingPathComponent("Documents", isDirectory: true),
            applicationSupportDirectory: url.appendingPathComponent("Application Support", isDirectory: true))
    }

    /// Deletes the folder and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
