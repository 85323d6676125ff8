/// A condition for a `WHERE` clause, rendered once: the shapes LiteRecord's
/// statements repeat, named, with their columns quoted by ``SQLIdentifier``.
/// Each `?` in ``sql`` is a parameter the caller binds, in order.
struct WhereClause: Sendable, CustomStringConvertible {
    /// The condition's SQL, without the `WHERE` keyword.
    let sql: String

    /// A condition written out, for shapes no constructor names (a translated
    /// predicate, a subquery). Its identifiers must already be quoted.
    init(sql: String) { self.sql = sql }

    var description: String { sql }

    /// `"column" = ?`
    static func equals(_ column: SQLIdentifier) -> WhereClause { WhereClause(sql: "\(column) = ?") }

    /// `"Z_PK" = ?`: one record's row.
    static let rowID = equals(.rowID)

    /// `"Z_PK" = ? AND "Z_OPT" = ?`: one record's row, if it is still at the
    /// version the context read — the optimistic-locking test.
    static let rowIDAndVersion = rowID && equals(.version)

    /// `"column" IS NOT NULL`
    static func isNotNull(_ column: SQLIdentifier) -> WhereClause { WhereClause(sql: "\(column) IS NOT NULL") }

    /// `"column" IN (list)`: `list` is a subquery or comma-separated values.
    static func column(_ column: SQLIdentifier, in list: String) -> WhereClause {
        WhereClause(sql: "\(column) IN (\(list))")
    }

    /// `"column" NOT IN (list)`
    static func column(_ column: SQLIdentifier, notIn list: String) -> WhereClause {
        WhereClause(sql: "\(column) NOT IN (\(list))")
    }

    /// `"column" IN (?, ?, …)` with `count` parameters (at least one).
    static func column(_ column: SQLIdentifier, inParameters count: Int) -> WhereClause {
        self.column(column, in: String(repeating: "?, ", count: max(count, 1) - 1) + "?")
    }

    /// `"column" IN (SELECT value FROM json_each(?))`: a set of values bound
    /// as one JSON array, so one statement serves every set size (a list of
    /// `?`s would be a new statement to prepare for each size).
    static func column(inJSONArray column: SQLIdentifier) -> WhereClause {
        self.column(column, in: jsonArrayValues)
    }

    /// `SELECT value FROM json_each(?)`: the values of one JSON array
    /// parameter, as a subquery. https://sqlite.org/json1.html#jeach
    static let jsonArrayValues = "SELECT value FROM json_each(?)"

    /// `(condition)`: kept whole inside an `AND` or `OR` around it.
    var parenthesized: WhereClause { WhereClause(sql: "(" + sql + ")") }

    /// Every one of `conditions`, joined by `AND`; `nil` when there is none.
    static func all(_ conditions: [WhereClause]) -> WhereClause? {
        conditions.isEmpty ? nil : WhereClause(sql: conditions.map(\.sql).joined(separator: " AND "))
    }

    /// Both conditions: `left AND right`.
    static func && (left: WhereClause, right: WhereClause) -> WhereClause {
        WhereClause(sql: left.sql + " AND " + right.sql)
    }
}
