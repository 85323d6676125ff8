#if canImport(XCTest)
public import LiteRecord
public import XCTest

/// An XCTest base class that gives each test its own in-memory stack as the
/// default stack — MagicalRecord's `setupCoreDataStackWithInMemoryStore` in
/// `setUp` and `cleanUp` in `tearDown`, without the global state that kept
/// such tests from running in parallel.
///
/// ```swift
/// final class PersonTests: RecordStackTestCase {
///     override var entities: [any Entity.Type] { [Person.self] }
///
///     @MainActor func testCreate() throws {
///         try Person(name: "Ann", age: 31).save()
///         XCTAssertEqual(try Person.count(), 1)
///     }
/// }
/// ```
///
/// The stack is closed after the test, also when the test throws or fails.
open class RecordStackTestCase: XCTestCase {
    /// The entities of the model; override it.
    open var entities: [any Entity.Type] { [] }

    /// The current test's stack, while the test runs.
    public private(set) var stack: RecordStack?

    override open func invokeTest() {
        let stack: RecordStack
        do {
            stack = try RecordStack(inMemoryWith: entities)
        } catch {
            XCTFail("RecordStackTestCase could not create the in-memory stack: \(error). Override `entities` with the entity types under test.")
            return
        }
        self.stack = stack
        defer {
            try? stack.close()
            self.stack = nil
        }
        // The default stack is task-local, so setUp, the test and tearDown all
        // see this test's stack, and parallel test processes or tasks never share one.
        RecordStack.withDefault(stack) { super.invokeTest() }
    }
}
#endif
