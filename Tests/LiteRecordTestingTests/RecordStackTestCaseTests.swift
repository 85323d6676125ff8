import LiteRecord
import LiteRecordTesting
import XCTest

/// The XCTest base class, tested with XCTest itself.
final class RecordStackTestCaseTests: RecordStackTestCase {
    override var entities: [any Entity.Type] { [Item.self] }

    /// Every stack a test of this class used, to check it was torn down.
    private var usedStack: RecordStack?

    override func invokeTest() {
        super.invokeTest()
        // After the test (passed, failed, thrown or skipped) its stack is closed.
        XCTAssertEqual(usedStack?.isOpen, false, "the test's stack must be closed after the test")
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        usedStack = stack
        XCTAssertTrue(RecordStack.isSetUp, "setUp already sees the test's stack")
    }

    @MainActor func testEachTestStartsEmpty() throws {
        XCTAssertEqual(try Item.count(), 0)
        try Item(owner: "a", index: 1).save()
        XCTAssertEqual(try Item.count(), 1)
    }

    @MainActor func testEachTestStartsEmptyAgain() throws {
        XCTAssertEqual(try Item.count(), 0)
        try Item(owner: "b", index: 1).save()
        try Item(owner: "b", index: 2).save()
        XCTAssertEqual(try Item.count(), 2)
    }

    func testAsyncTestsSeeTheStackToo() async throws {
        try await RecordStack.write { context in context.insert(Item(owner: "async", index: 0)) }
        let count = try await RecordStack.read { context in try Item.count(in: context) }
        XCTAssertEqual(count, 1)
    }

    func testStackIsTheDefault() throws {
        XCTAssertTrue(try RecordStack.current() === stack)
    }

    func testTearDownHappensWhenTheTestThrows() throws {
        try Item.truncateAll(in: XCTUnwrap(stack).newContext())
        // A thrown skip ends the test by throwing; invokeTest() above checks the
        // stack was closed anyway.
        throw XCTSkip("thrown on purpose: the stack must still be torn down")
    }
}
