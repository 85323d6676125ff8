import Foundation

/// A table, column, index or trigger name, double-quoted for SQL: the one place
/// LiteRecord quotes an identifier. Interpolating one into a string gives its
/// quoted text.
///
/// SQLite takes a double-quoted string as an identifier, with `""` standing
/// for a quote inside it, so every name (keywords, spaces, quotes) is safe:
/// https://sqlite.org/lang_keywords.html
struct SQLIdentifier: Hashable, Sendable, CustomStringConvertible {
    /// The identifier as it goes into SQL, quotes included.
    let quoted: String

    /// Quotes `name`.
    init(_ name: String) { quoted = Self.quote(name) }

    /// `schema."name"`: a name in an attached (or the `temp`) schema. The
    /// schema is one of LiteRecord's own fixed names, so it stays bare.
    init(_ name: String, inSchema schema: String) { quoted = schema + "." + Self.quote(name) }

    /// A column of LiteRecord's own tables (`entity`, `high`, `token`…), which
    /// its SQL has always written bare: a lowercase word SQLite takes as a
    /// name where it stands, kept bare so that statement texts, and so the
    /// statement cache and query plans, stay as they were.
    init(bare name: String) { quoted = name }

    var description: String { quoted }

    /// `qualifier."name"`: the column as a column of `qualifier` (a quoted
    /// table or an alias).
    func qualified(by qualifier: String) -> String { qualifier + "." + quoted }

    /// The quoted text of `identifier`.
    static func quote(_ identifier: String) -> String {
        // Names without a quote (all that the macro generates) skip the
        // Foundation replacement, which costs more than building the rest of
        // a query's SQL.
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
        return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The primary-key column of every entity table (``Model/primaryKeyColumn``
    /// is this name): the statements' shapes (`WhereClause.rowID`) name it.
    static let rowIDColumn = "Z_PK"

    /// The version column of every entity table (``Model/versionColumn`` is
    /// this name), which the statements' shapes name too.
    static let versionColumn = "Z_OPT"

    /// `"Z_PK"`: every entity table's primary key, the record's row id.
    static let rowID = SQLIdentifier(rowIDColumn)

    /// `"Z_OPT"`: every entity table's row version, the optimistic lock.
    static let version = SQLIdentifier(versionColumn)
}
