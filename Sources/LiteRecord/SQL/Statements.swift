/// What an `INSERT` does when the row breaks a uniqueness constraint.
/// https://sqlite.org/lang_conflict.html
enum InsertOr: String, Sendable {
    case ignore = "OR IGNORE"
    case replace = "OR REPLACE"
}

/// `INSERT [OR …] INTO "table" ("a", "b") VALUES (?, ?)`, or `DEFAULT VALUES`
/// without columns, or `… SELECT …`; optionally an upsert's `ON CONFLICT`.
/// The statement's SQL is rendered once, in ``sql``.
struct InsertStatement: Sendable, CustomStringConvertible {
    private(set) var sql: String

    /// `INSERT [OR …] INTO "table" ("a", "b") SELECT …`: the rows `select`
    /// (SQL text) reads.
    init(_ conflict: InsertOr? = nil, into table: SQLIdentifier, columns: [SQLIdentifier], select: String) {
        let verb = conflict.map { "INSERT \($0.rawValue) INTO " } ?? "INSERT INTO "
        sql = verb + "\(table) (\(columns.map(\.quoted).joined(separator: ", "))) " + select
    }

    /// The statement as an upsert: on a uniqueness conflict over `target`,
    /// the existing row takes `assignments` instead (`excluded.` names the
    /// row that was refused). https://sqlite.org/lang_upsert.html
    func onConflict(_ target: SQLIdentifier, doUpdate assignments: [Assignment]) -> InsertStatement {
        var upsert = self
        upsert.sql += " ON CONFLICT(\(target)) DO UPDATE SET " + assignments.map(\.sql).joined(separator: ", ")
        return upsert
    }

    init(_ conflict: InsertOr? = nil, into table: SQLIdentifier, columns: [SQLIdentifier]) {
        let verb = conflict.map { "INSERT \($0.rawValue) INTO " } ?? "INSERT INTO "
        guard !columns.isEmpty else {
            sql = verb + "\(table) DEFAULT VALUES"
            return
        }
        let names = joinedText(columns.map(\.quoted))
        let placeholders = joinedText(Array(repeating: "?", count: columns.count))
        sql = verb + "\(table) (\(names)) VALUES (\(placeholders))"
    }

    var description: String { sql }
}

/// One `SET` term of an ``UpdateStatement``.
struct Assignment: Sendable {
    let sql: String

    /// `"column" = ?`
    static func parameter(_ column: SQLIdentifier) -> Assignment { Assignment(sql: "\(column) = ?") }

    /// `"column" = NULL`
    static func null(_ column: SQLIdentifier) -> Assignment { Assignment(sql: "\(column) = NULL") }

    /// `"column" = expression`: `expression` is SQL whose identifiers are
    /// already quoted.
    static func expression(_ column: SQLIdentifier, _ expression: String) -> Assignment {
        Assignment(sql: "\(column) = \(expression)")
    }

    /// `"Z_OPT" = "Z_OPT" + 1`: the row moves to its next version, so another
    /// context holding the old one meets a conflict.
    static let nextVersion = expression(.version, "\(SQLIdentifier.version) + 1")
}

/// `UPDATE "table" SET … [WHERE …] [RETURNING …]`.
struct UpdateStatement: Sendable, CustomStringConvertible {
    let sql: String

    init(_ table: SQLIdentifier, set assignments: [Assignment], where condition: WhereClause? = nil, returning: [SQLIdentifier] = []) {
        sql = "UPDATE \(table) SET " + assignments.map(\.sql).joined(separator: ", ") + whereAndReturning(condition, returning)
    }

    var description: String { sql }
}

/// `DELETE FROM "table" [WHERE …] [RETURNING …]`.
struct DeleteStatement: Sendable, CustomStringConvertible {
    let sql: String

    init(from table: SQLIdentifier, where condition: WhereClause? = nil, returning: [SQLIdentifier] = []) {
        sql = "DELETE FROM \(table)" + whereAndReturning(condition, returning)
    }

    var description: String { sql }
}

/// ` WHERE …` and ` RETURNING …` of an update or delete, each when given.
private func whereAndReturning(_ condition: WhereClause?, _ returning: [SQLIdentifier]) -> String {
    var clauses = condition.map { " WHERE " + $0.sql } ?? ""
    if !returning.isEmpty { clauses += " RETURNING " + returning.map(\.quoted).joined(separator: ", ") }
    return clauses
}

/// `SELECT … FROM … [WHERE …] [ORDER BY …] [LIMIT …]`. Columns and the source
/// are SQL text (an expression, `"table" AS alias`, a join), so select lists
/// built elsewhere (``EntityDescription/selectSQL``) fit in.
struct SelectStatement: Sendable, CustomStringConvertible {
    let sql: String

    init(_ columns: [String], from source: String, where condition: WhereClause? = nil, orderBy: String? = nil, limit: String? = nil) {
        self.init(select: "SELECT " + joinedText(columns) + " FROM " + source, where: condition, orderBy: orderBy, limit: limit)
    }

    init(_ columns: [SQLIdentifier], from table: SQLIdentifier, where condition: WhereClause? = nil, orderBy: String? = nil, limit: String? = nil) {
        self.init(columns.map(\.quoted), from: table.quoted, where: condition, orderBy: orderBy, limit: limit)
    }

    /// Adds clauses to `select`, the `SELECT … FROM …` head of a statement
    /// rendered before (an entity's ``EntityDescription/selectSQL``).
    init(select: String, where condition: WhereClause? = nil, orderBy: String? = nil, limit: String? = nil) {
        var sql = select
        if let condition { sql += " WHERE " + condition.sql }
        if let orderBy { sql += " ORDER BY " + orderBy }
        if let limit { sql += " LIMIT " + limit }
        self.sql = sql
    }

    var description: String { sql }
}

/// `parts.joined(separator: separator)`, written out. The standard library's
/// `joined(separator:)` runs unspecialized and, the first time a process
/// calls it, searches the runtime's conformance tables (a third of a million
/// instructions): opening any store renders every entity's statements and
/// the model's canonical text.
func joinedText(_ parts: [String], separator: String = ", ") -> String {
    // An index loop: `enumerated()` or `for part in parts` instantiate the
    // iterator's generic type, which asks the runtime (the same search) for
    // `[String]`'s conformance to `Sequence`.
    var result = ""
    var index = 0
    while index < parts.count {
        if index > 0 { result += separator }
        result += parts[index]
        index += 1
    }
    return result
}
