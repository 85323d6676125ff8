import Foundation
import Testing
@testable import LiteRecord

/// Row ids travel to SQLite as one JSON array (`json_each`): written digit by
/// digit, it must read back as exactly the ids given, in order.
@Suite struct JSONIDListTests {
    private func expected(_ ids: [Int64]) -> SQLValue {
        .text("[" + ids.map(String.init).joined(separator: ",") + "]")
    }

    @Test func everyKindOfIDIsWrittenAsSwiftPrintsIt() {
        let edges: [Int64] = [0, 1, -1, 9, 10, 11, 99, 100, 101, 1_000_000, Int64.max, Int64.min, Int64.min + 1, -10, -100]
        #expect(RecordContext.jsonArray([]) == .text("[]"))
        for id in edges { #expect(RecordContext.jsonArray([id]) == expected([id])) }
        #expect(RecordContext.jsonArray(edges) == expected(edges))
        var generator = SystemRandomNumberGenerator()
        let random = (0..<2_000).map { _ in Int64.random(in: Int64.min...Int64.max, using: &generator) }
        #expect(RecordContext.jsonArray(random) == expected(random))
    }

    @Test func sqliteReadsTheSameIDsBack() throws {
        let db = try Connection(path: nil)
        let ids: [Int64] = [3, Int64.max, -7, 0, Int64.min, 42]
        let rows = try db.rows("SELECT value FROM json_each(?)", [RecordContext.jsonArray(ids)])
        #expect(rows.map { $0.first?.integerValue } == ids.map { Optional($0) })
    }
}
