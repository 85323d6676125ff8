import Foundation
import Testing
@testable import LiteRecord

/// An entity's select list names each attribute by an alias, its own name
/// (``EntityDescription/selectSQL``), so that a sort with a collation keeps
/// the column once in the records of SQLite's sorter instead of twice. The
/// alias must change nothing else: every sorted, sliced query returns the
/// same rows, in the same order, as the select list without aliases
/// (Docs/Internals/Invariants.md, "A fast path means what the plain path
/// means"), and the objects come back as `sorted(using:)` orders them.
@Suite struct SortedSelectAliasTests {
    static let sorts: [[SortDescriptor<QueryPerson>]] = [
        [SortDescriptor(\.name)],
        [SortDescriptor(\.name, order: .reverse)],
        [SortDescriptor(\.nickname), SortDescriptor(\.name, order: .reverse)],
        [SortDescriptor(\.nickname, order: .reverse), SortDescriptor(\.age)],
        [SortDescriptor(\.price), SortDescriptor(\.name)],
        [SortDescriptor(\.age), SortDescriptor(\.nickname)],
        [SortDescriptor(\.birthday), SortDescriptor(\.price, order: .reverse)],
        [SortDescriptor(\.score, order: .reverse)],
    ]

    /// (limit, offset) pairs: none, a top N, a page past the start, an
    /// offset alone.
    static let slices: [(Int?, Int?)] = [(nil, nil), (1, nil), (100, nil), (25, 40), (nil, 590), (7, 0)]

    @Test func aliasedAndPlainSelectsReturnTheSameRowsInTheSameOrder() throws {
        let stack = try QuerySeed.stack(count: 600)
        let entity = EntityDescription(type: QueryPerson.self)
        let plainSelect = Self.plainSelect(entity)
        #expect(entity.selectSQL != plainSelect)
        for sort in Self.sorts {
            let orderBy = try SortTranslator.orderBy(sort)
            for (limit, offset) in Self.slices {
                let query = SQLQuery(whereSQL: "\"age\" >= ?", arguments: [.integer(10)], orderBy: orderBy, limit: limit, offset: offset)
                let aliased = try Self.rows(entity.selectSQL + query.clauses, query.arguments, stack)
                let plain = try Self.rows(plainSelect + query.clauses, query.arguments, stack)
                #expect(aliased == plain, "ORDER BY \(orderBy ?? "") LIMIT \(limit.map(String.init) ?? "-") OFFSET \(offset ?? 0)")
                #expect(!aliased.isEmpty || offset == 590)
            }
        }
    }

    @Test func sortedFetchesOrderObjectsAsSwiftDoes() throws {
        let stack = try QuerySeed.stack(count: 600)
        let context = stack.newContext()
        let everyone = try QueryPerson.findAll(in: context)
        for sort in Self.sorts {
            let expected = everyone.sorted(using: sort).map(\.recordID)
            #expect(try QueryPerson.findAll(sortedBy: sort, in: context).map(\.recordID) == expected)
            let request = FetchRequest<QueryPerson>(sortBy: sort, fetchLimit: 100)
            #expect(try QueryPerson.fetch(request, in: context).map(\.recordID) == Array(expected.prefix(100)))
        }
    }

    /// What the alias is for: in a sort by text, the record SQLite's sorter
    /// keeps per row holds the column once, one value fewer than without
    /// the alias (`MakeRecord`'s count of registers).
    @Test func aSortByTextKeepsTheColumnOnceInTheSortersRecords() throws {
        let stack = try QuerySeed.stack(count: 10)
        let entity = EntityDescription(type: QueryPerson.self)
        let orderBy = try SortTranslator.orderBy([SortDescriptor<QueryPerson>(\.name)])
        let clauses = SQLQuery(orderBy: orderBy, limit: 100).clauses
        let aliased = try Self.sorterRecordWidth(entity.selectSQL + clauses, stack)
        let plain = try Self.sorterRecordWidth(Self.plainSelect(entity) + clauses, stack)
        #expect(aliased == plain - 1)
    }

    /// The select list as it was before the aliases: bare column names.
    private static func plainSelect(_ entity: EntityDescription) -> String {
        let columns = [SQLIdentifier.rowID] + (0..<entity.columnCount).map { SQLIdentifier(entity.columnName($0)) } + [.version]
        return SelectStatement(columns, from: SQLIdentifier(entity.name)).sql
    }

    /// Every row, text as its bytes (``SQLValue``'s `==` compares text as
    /// Swift does, by canonical equivalence).
    private static func rows(_ sql: String, _ arguments: [SQLValue], _ stack: RecordStack) throws -> [[SQLValue]] {
        try stack.store.withConnection("reading QueryPerson") { connection in
            try connection.rows(sql, arguments).map { row in
                row.map { if case .text(let text) = $0 { .blob(Data(text.utf8)) } else { $0 } }
            }
        }
    }

    /// The registers of the record the statement's sorter inserts.
    private static func sorterRecordWidth(_ sql: String, _ stack: RecordStack) throws -> Int {
        let program = try rows("EXPLAIN " + sql, [], stack)
        let records = program.compactMap { step -> Int? in
            guard case .blob(let opcode) = step[1], String(decoding: opcode, as: UTF8.self) == "MakeRecord",
                case .integer(let width) = step[3]
            else { return nil }
            return Int(width)
        }
        #expect(records.count == 1)
        return records.first ?? 0
    }
}
