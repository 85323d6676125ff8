import Foundation
import LiteRecord
import XCTest

/// The XCTest spellings of catching LiteRecord's errors, which must compile
/// (typed throws in a public signature crashed the Swift 6.3.1 compiler on
/// them) and see the error's kind and message.
final class PlainThrowsXCTests: XCTestCase {
    @Entity(name: "Member")
    final class MemberV1 {
        var name = ""
        init() {}
    }

    @Entity(name: "Member")
    final class MemberV2 {
        var name = ""
        var email = ""
        init() {}
    }

    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("LiteRecordTesting-PlainThrows-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let stack = try RecordStack(storeAt: folder.appendingPathComponent("Members.sqlite"), entities: [MemberV1.self])
        try stack.close()
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: folder)
    }

    func testXCTAssertThrowsErrorSeesTheKindAndMessage() {
        let url = folder.appendingPathComponent("Members.sqlite")
        XCTAssertThrowsError(try RecordStack(storeAt: url, entities: [MemberV2.self])) { error in
            guard let error = error as? LiteRecordError else { return XCTFail("not a LiteRecordError: \(error)") }
            XCTAssertEqual(error.kind, .modelMismatch)
            XCTAssertTrue(String(describing: error).contains("email"), "\(error)")
        }
    }

    func testCatchAsLiteRecordError() throws {
        let url = folder.appendingPathComponent("Members.sqlite")
        do {
            let stack = try RecordStack(storeAt: url, entities: [MemberV2.self])
            try? stack.close()
            XCTFail("a changed model was accepted")
        } catch let error as LiteRecordError {
            XCTAssertEqual(error.kind, .modelMismatch)
            XCTAssertTrue(String(describing: error).contains("email"), "\(error)")
        }
    }
}
