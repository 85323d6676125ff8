import Foundation
import LiteRecord
import Testing

/// The way people catch LiteRecord's errors by habit must compile and work.
///
/// These tests exist for their call sites as much as for their assertions:
/// `catch let error as LiteRecordError` against a function declared
/// `throws(LiteRecordError)` crashed the Swift 6.3.1 compiler (SIL ownership
/// verifier, "Found outside of lifetime use?!"). If a public declaration goes
/// back to typed throws, `make test` stops building here;
/// `scripts/check-public-api.sh` names the declaration.
@Suite struct PlainThrowsTests {
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

    @Test func catchAsLiteRecordErrorOnAModelMismatch() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Members.sqlite")
        let first = try RecordStack(storeAt: url, entities: [MemberV1.self])
        try first.close()

        var caught = false
        do {
            let stack = try RecordStack(storeAt: url, entities: [MemberV2.self])
            try? stack.close()
        } catch let error as LiteRecordError {
            caught = true
            #expect(error.kind == .modelMismatch)
            #expect(String(describing: error).contains("email"))
        }
        #expect(caught)
    }

    @Test @MainActor func catchAndCastFindsTheKind() throws {
        let stack = try RecordStack(inMemoryWith: [MemberV1.self])
        defer { try? stack.close() }
        do {
            _ = try MemberV1.findAll(sortedBy: "nickname", in: stack.mainContext)
            Issue.record("an unknown attribute was accepted")
        } catch {
            #expect((error as? LiteRecordError)?.kind == .unknownAttribute)
        }
    }

    @Test @MainActor func expectThrowsMatchesTheErrorType() throws {
        let stack = try RecordStack(inMemoryWith: [MemberV1.self])
        defer { try? stack.close() }
        #expect(throws: LiteRecordError.self) {
            try MemberV1.find(byAttribute: "nickname", withValue: "x", in: stack.mainContext)
        }
    }

    @Test func aUserErrorThrownInsideWriteComesOutUnchanged() async throws {
        struct Mine: Error, Equatable { let code: Int }
        let stack = try RecordStack(inMemoryWith: [MemberV1.self])
        defer { try? stack.close() }
        await #expect(throws: Mine(code: 7)) {
            try await stack.write { context in
                context.insert(MemberV1())
                throw Mine(code: 7)
            }
        }
        let count = try await stack.read { context in try MemberV1.count(in: context) }
        #expect(count == 0)
    }
}
