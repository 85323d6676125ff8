import Foundation
import Testing
@testable import LiteRecord

/// Caller input never crashes an import (Docs/Internals/Invariants.md, "Nothing traps on input"): nesting past the
/// documented limits is refused with `.validationFailed` instead of
/// overflowing the stack. The 10,000-level cases run in a child process
/// (an exit test), so a crash fails one test instead of the whole run.
@Suite struct ImportDepthTests {
    /// `levels` nodes, each the `child` of the one before.
    static func chain(_ levels: Int) -> [String: Any] {
        var node: [String: Any] = ["id": levels]
        for id in stride(from: levels - 1, through: 1, by: -1) { node = ["id": id, "child": node] }
        return node
    }

    /// `levels` arrays, one inside the other.
    static func nestedArrays(_ levels: Int) -> Any {
        var value: Any = [Any]()
        for _ in 1..<levels { value = [value] }
        return value
    }

    @Test func tenThousandLevelsAreRefusedNotACrash() async {
        await #expect(processExitsWith: .success) {
            let context = try RecordStack(inMemoryWith: [INode.self]).newContext()
            let deepObjects = ImportDepthTests.chain(10_000)
            let deepValue: [String: Any] = ["id": 1, "payload": ImportDepthTests.nestedArrays(10_000)]
            for input in [deepObjects, deepValue] {
                do {
                    _ = try INode.importObject(from: input, in: context)
                    exit(2)
                } catch let error as LiteRecordError where error.kind == .validationFailed {
                    guard error.message.contains("levels deep") else { exit(3) }
                }
            }
            let text = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
            do {
                _ = try INode.importObjects(from: Data(text.utf8), in: context)
                exit(4)
            } catch let error as LiteRecordError where error.kind == .validationFailed {
                guard error.message.contains("512 levels") else { exit(5) }
            }
            guard context.insertedObjects.isEmpty else { exit(6) }
        }
    }

    @Test func theLimitIsAHundredLevelsOfObjects() throws {
        let context = try RecordStack(inMemoryWith: [INode.self]).newContext()
        let top = try #require(try INode.importObject(from: Self.chain(Importer.maximumDepth), in: context))
        var depth = 1
        var node = top
        while let child = node.child { (node, depth) = (child, depth + 1) }
        #expect(depth == 100 && context.insertedObjects.count == 100)
        let error = expectError(.validationFailed) {
            try INode.importObject(from: Self.chain(Importer.maximumDepth + 1), in: try RecordStack(inMemoryWith: [INode.self]).newContext())
        }
        #expect(error?.message.contains("more than 100 levels deep") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("element 0, key path 'child.child.") == true)
    }

    @Test func jsonTextDeeperThanJSONSerializationAllowsIsRefused() throws {
        let context = try RecordStack(inMemoryWith: [INode.self]).newContext()
        let text = #"{"id": 1, "payload": "# + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}"
        let error = expectError(.validationFailed) { try INode.importObject(from: Data(text.utf8), in: context) }
        #expect(error?.message.contains("nested more than 512 levels deep") == true, "\(error?.message ?? "")")
        let value: [String: Any] = ["id": 1, "payload": Self.nestedArrays(600)]
        let nested = expectError(.validationFailed) { try INode.importObject(from: value, in: context) }
        #expect(nested?.message.contains("key path 'payload'") == true, "\(nested?.message ?? "")")
    }
}
