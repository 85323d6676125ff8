/// An entity whose every stored property has a default value, so that
/// `create(in:)` can make one. The `@Entity` macro adds the conformance when
/// it applies.
public protocol DefaultInitializable {
    /// Creates an object with every stored property at its default value.
    init()
}

extension Entity {
    /// The description of the attribute called `name`.
    ///
    /// - Throws: ``LiteRecordError`` of kind `.unknownAttribute` naming the
    ///   entity's attributes, so a typo is easy to spot.
    static func attribute(named name: String) throws(LiteRecordError) -> AttributeDescription {
        guard let attribute = attributes.first(where: { $0.name == name }) else {
            throw LiteRecordError(
                .unknownAttribute,
                "\(entityName) has no attribute named '\(name)'; its attributes are \(attributes.map(\.name).sorted().joined(separator: ", "))")
        }
        return attribute
    }

    /// `"column" = ?` (or `IS NULL`) for an attribute named by the caller,
    /// true exactly when Swift's `==` is: text compares by canonical
    /// equivalence, as `#Predicate` does. Unique and indexed text is stored
    /// in NFC, so its lookup binds the value in NFC and compares bytes, which
    /// keeps the index usable; other text uses the Swift collation.
    static func equalityClause(_ name: String, _ value: (any SQLValueConvertible)?) throws(LiteRecordError) -> (String, [SQLValue]) {
        let attribute = try attribute(named: name)
        let column = Connection.quote(attribute.name)
        let bound: SQLValue
        do {
            bound = try value?.comparisonValue() ?? .null
        } catch let error as LiteRecordError {
            throw error
        } catch {
            throw LiteRecordError(.validationFailed, "the value for \(entityName).\(name) cannot be bound: \(error)")
        }
        if bound.isNull { return ("\(column) IS NULL", []) }
        // Decimal text is compared as the Decimal it spells ("1.50" is 1.5).
        if attribute.type == .decimal, case .text = bound {
            return ("\(column) = ? COLLATE \(SwiftComparison.decimalCollation)", [bound])
        }
        guard attribute.type == .string, case .text = bound else { return ("\(column) = ?", [bound]) }
        if attribute.storesCanonicalText { return ("\(column) = ?", [bound.canonicalText]) }
        return ("\(column) = ? COLLATE \(SQLFunctions.swiftCollation)", [bound])
    }

    /// `ORDER BY` terms for a comma-separated list of attribute names; text
    /// sorts as a `SortDescriptor` on it does (Swift's `<`, canonically
    /// equivalent texts together). A name may go through to-one relationships
    /// (`author.name`), whose `nil` sorts first ascending, like a `NULL`.
    static func orderClause(_ names: String, ascending: Bool) throws(LiteRecordError) -> String {
        let parts = names.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !parts.isEmpty else { throw LiteRecordError(.unknownAttribute, "no attribute given to sort \(entityName) by") }
        var terms: [String] = []
        for part in parts {
            let (column, attribute) = part.contains(".") ? try relatedColumn(part) : (nil, try attribute(named: part))
            let collation =
                switch attribute.type {
                case .string: " COLLATE \(SQLFunctions.swiftOrderCollation)"
                case .decimal: " COLLATE \(SwiftComparison.decimalCollation)"
                default: ""
                }
            terms.append("\(column ?? Connection.quote(attribute.name))\(collation) \(ascending ? "ASC" : "DESC")")
        }
        return terms.joined(separator: ", ")
    }

    /// The SQL reading an attribute through to-one relationships
    /// (`author.publisher.name`): one scalar subquery by primary key per hop,
    /// `NULL` as soon as a relationship is `nil`.
    ///
    /// - Throws: ``LiteRecordError`` of kind `.unknownAttribute` naming the
    ///   part that is not a to-one relationship (or, last, an attribute).
    static func relatedColumn(_ path: String) throws(LiteRecordError) -> (String, AttributeDescription) {
        let names = path.split(separator: ".", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let key = Connection.quote(Model.primaryKeyColumn)
        var type: any Entity.Type = Self.self
        var rowID: String?
        for (position, name) in names.dropLast().enumerated() {
            guard let relationship = type.relationships.first(where: { $0.name == name && !$0.isToMany }) else {
                let toOnes = type.relationships.filter { !$0.isToMany }.map(\.name).sorted()
                throw LiteRecordError(
                    .unknownAttribute,
                    "cannot sort \(entityName) by '\(path)': \(type.entityName) has no to-one relationship named '\(name)'"
                        + (toOnes.isEmpty ? "" : "; its to-ones are \(toOnes.joined(separator: ", "))"))
            }
            let column = Connection.quote(relationship.name)
            if let previous = rowID {
                let alias = "literecord_sort\(position)"
                rowID = "(SELECT \(alias).\(column) FROM \(Connection.quote(type.entityName)) AS \(alias) WHERE \(alias).\(key) = \(previous))"
            } else {
                rowID = "\(Connection.quote(entityName)).\(column)"
            }
            type = relationship.destination
        }
        let attribute = try attribute(named: names.last ?? "", of: type)
        let alias = "literecord_sort\(names.count)"
        let sql = "(SELECT \(alias).\(Connection.quote(attribute.name)) FROM \(Connection.quote(type.entityName)) AS \(alias) WHERE \(alias).\(key) = \(rowID ?? "NULL"))"
        return (sql, attribute)
    }

    private static func attribute(named name: String, of type: any Entity.Type) throws(LiteRecordError) -> AttributeDescription {
        func open<D: Entity>(_ type: D.Type) -> Result<AttributeDescription, LiteRecordError> {
            Result { () throws(LiteRecordError) in try D.attribute(named: name) }
        }
        return try open(type).get()
    }
}

import Foundation
