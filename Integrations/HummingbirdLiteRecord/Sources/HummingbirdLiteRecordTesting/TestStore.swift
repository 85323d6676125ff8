public import Foundation
public import HummingbirdTesting
public import LiteRecord

/// A store file for one test of a service: a folder of its own under the
/// temporary directory, opened as a server opens its store (automatic
/// migration, history on), opened again for a restart, and removed with its
/// `-wal` and `-shm`. LiteRecordTesting's traits give a test the *default*
/// stack; a service holds a stack of its own, which this gives it.
///
/// ```swift
/// let store = try TestStore()
/// defer { store.remove() }
/// let first = try store.open(entities: [Todo.self])
/// try await Application(router: makeRouter(stack: first)).test(.router) { client in … }
/// try first.close()
/// let second = try store.open(entities: [Todo.self])     // the restart
/// ```
public struct TestStore: Sendable {
    /// The folder that holds the store and nothing else.
    public let folder: URL
    /// The store file.
    public let url: URL

    /// A new, empty folder for a store named `name`.
    ///
    /// ```swift
    /// let store = try TestStore(named: "Inventory.sqlite")
    /// ```
    ///
    /// - Throws: the file system's error creating the folder.
    public init(named name: String = "Test.sqlite") throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("literecord-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        url = folder.appendingPathComponent(name)
    }

    /// Opens the store as a service does: `RecordStack(storeAt:entities:migration:history:)`.
    /// Call it again after closing the stack to test a restart.
    ///
    /// ```swift
    /// let stack = try store.open(entities: [Todo.self], history: .disabled)
    /// ```
    ///
    /// - Throws: the stack's `LiteRecordError` (a migration that fails, say).
    public func open(entities: [any Entity.Type], migration: MigrationMode = .automatic,
                     history: HistoryOptions = .enabled) throws -> RecordStack {
        try RecordStack(storeAt: url, entities: entities, migration: migration, history: history)
    }

    /// Removes the folder and everything in it. Close the stacks first.
    public func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}

/// Runs `body` with a new ``TestStore`` and removes it afterwards, whatever
/// `body` throws.
///
/// ```swift
/// try await withTestStore { store in
///     let stack = try store.open(entities: [Todo.self])
///     defer { try? stack.close() }
///     …
/// }
/// ```
///
/// - Throws: what `body` throws; the file system's error creating the folder.
public func withTestStore<T: Sendable>(named name: String = "Test.sqlite", _ body: (TestStore) async throws -> T) async throws -> T {
    let store = try TestStore(named: name)
    defer { store.remove() }
    return try await body(store)
}

/// Sends `count` requests at once, each from a task of its own, and returns
/// the answers in the order of `index`. Use it with an application tested
/// through `.ahc(.http)`, where each request in flight has a connection of
/// its own: HummingbirdTesting's `.live` sends every request over one
/// connection, one after the other, so requests meant to race never overlap
/// there (a double spend passes), and `.router` has no connection at all.
///
/// ```swift
/// try await app.test(.ahc(.http)) { client in
///     let answers = try await concurrently(8) { _ in
///         try await client.execute(uri: "/stock/1/take", method: .post)
///     }
///     #expect(answers.filter { $0.status == .ok }.count == 1)     // one item left: one taker
/// }
/// ```
///
/// - Throws: the first error a request throws (the others are cancelled).
public func concurrently(_ count: Int, _ send: @escaping @Sendable (_ index: Int) async throws -> TestResponse) async throws -> [TestResponse] {
    try await withThrowingTaskGroup(of: (Int, TestResponse).self) { group in
        for index in 0..<count {
            group.addTask { (index, try await send(index)) }
        }
        var answers: [(Int, TestResponse)] = []
        for try await answer in group { answers.append(answer) }
        return answers.sorted { $0.0 < $1.0 }.map(\.1)
    }
}
