import Foundation

/// The SQL of the lookups and sorts the convenience layer takes by attribute
/// name (`findFirst(byAttribute:)`, `findAll(sortedBy:)`): built here, beside
/// the rest of the query SQL, so the entity methods stay a lookup and a call.
enum AttributeSQL {
    /// `"column" = ?` (or `IS NULL`) for `attribute` and its bound value,
    /// true exactly when Swift's `==` is: text compares by canonical
    /// equivalence, as `#Predicate` does. Unique and indexed text is stored
    /// in NFC, so its lookup binds the value in NFC and compares bytes, which
    /// keeps the index usable; other text uses the Swift collation.
    static func equality(_ attribute: AttributeDescription, _ bound: SQLValue) -> (String, [SQLValue]) {
        let column = SQLIdentifier(attribute.name)
        if bound.isNull { return ("\(column) IS NULL", []) }
        // Decimal text is compared as the Decimal it spells ("1.50" is 1.5).
        if attribute.type == .decimal, case .text = bound {
            return ("\(column) = ? COLLATE \(SwiftComparison.decimalCollation)", [bound])
        }
        guard attribute.type == .string, case .text = bound else { return (WhereClause.equals(column).sql, [bound]) }
        if attribute.storesCanonicalText { return (WhereClause.equals(column).sql, [bound.canonicalText]) }
        return ("\(column) = ? COLLATE \(SQLFunctions.swiftCollation)", [bound])
    }

    /// One `ORDER BY` term: `column` (an attribute's, or `attribute`'s own
    /// when `nil`) with the collation that sorts as Swift's `<` does.
    static func orderTerm(_ column: String?, _ attribute: AttributeDescription, ascending: Bool) -> String {
        let collation =
            switch attribute.type {
            case .string: " COLLATE \(SQLFunctions.swiftOrderCollation)"
            case .decimal: " COLLATE \(SwiftComparison.decimalCollation)"
            default: ""
            }
        return "\(column ?? SQLIdentifier(attribute.name).quoted)\(collation) \(ascending ? "ASC" : "DESC")"
    }

    /// The SQL reading an attribute of `root` through to-one relationships
    /// (`author.publisher.name`): one scalar subquery by primary key per hop,
    /// `NULL` as soon as a relationship is `nil`.
    ///
    /// - Throws: ``LiteRecordError`` of kind `.unknownAttribute` naming the
    ///   part that is not a to-one relationship (or, last, an attribute).
    static func relatedColumn(_ path: String, of root: any Entity.Type) throws(LiteRecordError) -> (String, AttributeDescription) {
        let names = path.split(separator: ".", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        var type: any Entity.Type = root
        var rowID: String?
        for (position, name) in names.dropLast().enumerated() {
            guard let relationship = type.relationships.first(where: { $0.name == name && !$0.isToMany }) else {
                let toOnes = type.relationships.filter { !$0.isToMany }.map(\.name).sorted()
                throw LiteRecordError(
                    .unknownAttribute,
                    "cannot sort \(root.entityName) by '\(path)': \(type.entityName) has no to-one relationship named '\(name)'"
                        + (toOnes.isEmpty ? "" : "; its to-ones are \(toOnes.joined(separator: ", "))"))
            }
            let column = SQLIdentifier(relationship.name)
            if let previous = rowID {
                rowID = "(\(hop(column, of: type, alias: "literecord_sort\(position)", rowID: previous)))"
            } else {
                rowID = column.qualified(by: SQLIdentifier.quote(root.entityName))
            }
            type = relationship.destination
        }
        let attribute = try attribute(named: names.last ?? "", of: type)
        let sql = "(\(hop(SQLIdentifier(attribute.name), of: type, alias: "literecord_sort\(names.count)", rowID: rowID ?? "NULL")))"
        return (sql, attribute)
    }

    /// `SELECT alias."column" FROM "table" AS alias WHERE alias."Z_PK" = rowID`
    private static func hop(_ column: SQLIdentifier, of type: any Entity.Type, alias: String, rowID: String) -> SelectStatement {
        SelectStatement(
            [column.qualified(by: alias)], from: "\(SQLIdentifier(type.entityName)) AS \(alias)",
            where: WhereClause(sql: "\(SQLIdentifier.rowID.qualified(by: alias)) = \(rowID)"))
    }

    private static func attribute(named name: String, of type: any Entity.Type) throws(LiteRecordError) -> AttributeDescription {
        func open<D: Entity>(_ type: D.Type) -> Result<AttributeDescription, LiteRecordError> {
            Result { () throws(LiteRecordError) in try D.attribute(named: name) }
        }
        return try open(type).get()
    }
}
