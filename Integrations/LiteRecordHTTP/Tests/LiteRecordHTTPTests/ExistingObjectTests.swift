import LiteRecord
import LiteRecordHTTP
import Testing

/// `ConditionalRequest.existing(_:rowID:in:)`: the object a write changes,
/// 404 when there is none, 412 when its tag fails the preconditions.
@Suite struct ExistingObjectTests {
    static func conditions(_ ifMatch: EntityTagCondition?) -> ConditionalRequest {
        ConditionalRequest(method: "DELETE", path: "/items/1", ifMatch: ifMatch, ifNoneMatch: nil,
                           ifUnmodifiedSince: nil, ifModifiedSince: nil)
    }

    /// The problem `existing` throws for row `rowID` under `ifMatch`, or
    /// `nil` when it finds the object.
    static func problem(_ stack: RecordStack, rowID: Int64, _ ifMatch: EntityTagCondition?) async throws -> HTTPProblem? {
        try await stack.read { store in
            do {
                _ = try conditions(ifMatch).existing(Item.self, rowID: rowID, in: store)
                return nil
            } catch let problem as HTTPProblem {
                return problem
            }
        }
    }

    @Test func findsThenEvaluates() async throws {
        let stack = try RecordStack(inMemoryWith: [Item.self])
        defer { try? stack.close() }
        let tag = try await stack.write { store in
            let item = Item()
            store.insert(item)
            item.code = "a"
            try store.save()
            return EntityTag(for: item)
        }
        let current = try #require(tag)
        #expect(try await Self.problem(stack, rowID: 1, .tags([current])) == nil)
        let missing = try await Self.problem(stack, rowID: 2, .any)
        #expect(missing?.status == 404)
        #expect(missing?.detail == "no Item 2")
        let stale = try await Self.problem(stack, rowID: 1, .tags([EntityTag(id: 1, version: 0)]))
        #expect(stale?.status == 412)
        #expect(stale?.headers["ETag"] == current.description)
    }
}
