public import LiteRecord
public import Testing

/// Gives every test case its own in-memory stack, installed as the default
/// stack for the test's task tree, so the facade and the entity conveniences
/// use it — and tests running in parallel never see each other's data.
///
/// ```swift
/// @Test(.inMemoryStack(entities: [Person.self]))
/// @MainActor func createsPerson() throws {
///     try Person(name: "Ann", age: 31).save()
///     #expect(try Person.count() == 1)
/// }
/// ```
///
/// On a suite, every test in it (and every argument of a parameterized test)
/// gets a fresh stack.
public struct InMemoryStackTrait: TestTrait, SuiteTrait, TestScoping {
    let entities: [any Entity.Type]

    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> InMemoryStackTrait? {
        // One stack per test case; the suite itself needs none.
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let stack = try RecordStack(inMemoryWith: entities)
        defer { try? stack.close() }
        try await RecordStack.withDefault(stack) {
            // Also closes a stack the test set up itself after a cleanUp().
            defer { try? RecordStack.cleanUp() }
            try await function()
        }
    }
}

extension Trait where Self == InMemoryStackTrait {
    /// A fresh in-memory stack of `entities` for each test case, as the default stack.
    public static func inMemoryStack(entities: [any Entity.Type]) -> Self {
        InMemoryStackTrait(entities: entities)
    }
}
