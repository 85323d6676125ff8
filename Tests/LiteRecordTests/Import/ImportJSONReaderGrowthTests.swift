import Foundation
import Testing
@testable import LiteRecord

/// The JSON reader puts each value into its open array or object in place:
/// the array it appends to must be the only reference to its storage, or
/// every value copies all the values before it and an import of n objects
/// reads in n² (100,000 objects took over two minutes that way, instead of
/// a fraction of a second). These tests check the in-place step and a long
/// read; whether the compiler makes such a copy depends on how the code is
/// written and built, so the cost itself is `make bench-import`'s to show.
@Suite struct ImportJSONReaderGrowthTests {
    @Test func addingToAnOpenArrayKeepsItsStorage() {
        var values: [Any] = []
        values.reserveCapacity(128)
        let storage = Self.address(of: values)
        var container = ImportJSONReader.Container.array(values)
        values = []
        for index in 0..<100 { container.add(index) }
        guard case .array(let filled) = container else {
            Issue.record("the container is no longer an array")
            return
        }
        #expect(filled.count == 100)
        #expect(filled.last as? Int == 99)
        #expect(Self.address(of: filled) == storage)
    }

    @Test func anObjectTakesEachValueUnderItsKey() {
        var container = ImportJSONReader.Container.object([:], key: "a")
        container.add(1)
        container.expect("b")
        container.add("two")
        guard case .object(let object, let key) = container else {
            Issue.record("the container is no longer an object")
            return
        }
        #expect(key == "b")
        #expect(object["a"] as? Int == 1)
        #expect(object["b"] as? String == "two")
    }

    @Test func aLongArrayReadsWhole() throws {
        let objects = (0..<20_000).map { ["id": $0, "name": "n\($0)"] as [String: Any] }
        var reader = ImportJSONReader(try JSONSerialization.data(withJSONObject: objects))
        let read = try reader.read() as? [[String: Any]]
        #expect(read?.count == 20_000)
        #expect(read?.last?["name"] as? String == "n19999")
    }

    private static func address(of values: [Any]) -> UnsafeRawPointer? {
        values.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }
}
