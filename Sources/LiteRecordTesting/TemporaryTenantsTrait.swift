public import LiteRecord
public import Testing
import Foundation

/// Gives every test case its own tenants folder (``/LiteRecord/RecordStacks``) in a
/// unique temporary folder; afterwards every stack is closed and the folder
/// is deleted with every tenant's files. Test cases running in parallel each
/// see their own (it is a task-local value, as the other traits' stacks are).
///
/// ```swift
/// @Test(.temporaryTenants(entities: [Note.self]))
/// func eachTenantKeepsItsOwnNotes() async throws {
///     let tenants = try TemporaryTenants.current()
///     try tenants.create("acme")
///     try await tenants.withStack(for: "acme") { stack in … }
/// }
/// ```
public struct TemporaryTenantsTrait: TestTrait, SuiteTrait, TestScoping {
    let entities: [any Entity.Type]
    let maxOpen: Int

    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> TemporaryTenantsTrait? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let folder = try TemporaryStoreFolder()
        defer { folder.remove() }
        let tenants = try RecordStacks(
            directory: folder.url.appendingPathComponent("Tenants", isDirectory: true), entities: entities, maxOpen: maxOpen)
        // Closed before the folder goes, so that SQLite has let go of every
        // tenant's -wal and -shm. `close()` blocks while closures still hold
        // stacks: off the cooperative threads.
        defer { closeOffPool(tenants) }
        try await TemporaryTenants.$scoped.withValue(tenants) {
            try await function()
        }
    }

    private func closeOffPool(_ tenants: RecordStacks) {
        let done = DispatchSemaphore(value: 0)
        Thread {
            tenants.close()
            done.signal()
        }.start()
        done.wait()
    }
}

/// The tenants folder of the running test case (see
/// ``TemporaryTenantsTrait``).
public enum TemporaryTenants {
    @TaskLocal static var scoped: RecordStacks?

    /// The test case's ``/LiteRecord/RecordStacks``.
    ///
    /// ```swift
    /// let tenants = try TemporaryTenants.current()
    /// ```
    ///
    /// - Throws: ``/LiteRecord/LiteRecordError`` of kind `.notSetUp` outside a test (or a
    ///   task of it) that has the `.temporaryTenants` trait; a
    ///   `Task.detached` does not inherit it.
    public static func current() throws -> RecordStacks {
        guard let scoped else {
            throw LiteRecordError(
                .notSetUp,
                "no tenants folder here: TemporaryTenants.current() works inside a test with the .temporaryTenants(entities:) trait (a Task.detached does not inherit it)")
        }
        return scoped
    }
}

extension Trait where Self == TemporaryTenantsTrait {
    /// A fresh tenants folder of `entities` for each test case, removed
    /// afterwards with every tenant; reach it with
    /// ``TemporaryTenants/current()``.
    public static func temporaryTenants(entities: [any Entity.Type], maxOpen: Int = 8) -> Self {
        TemporaryTenantsTrait(entities: entities, maxOpen: maxOpen)
    }
}
