/// The column names LiteRecord keeps for itself, in one list for the model
/// and the `@Entity` macro: `Sources/LiteRecordMacros/ReservedNames.swift` is
/// a link to this file, so that the macro refuses at compile time exactly
/// the names that `Model` refuses at setup.
enum ReservedNames {
    /// Lowercased: SQLite's column names ignore case. `Z_PK` is every
    /// table's key and `Z_OPT` its row version; `rowid`, `oid` and `_rowid_`
    /// are SQLite's names of the key (https://sqlite.org/lang_createtable.html#rowid).
    static let columns: Set<String> = ["z_pk", "z_opt", "rowid", "oid", "_rowid_"]

    /// The list as messages show it: sorted, separated by commas.
    static var columnList: String { columns.sorted().joined(separator: ", ") }
}
