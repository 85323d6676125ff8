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
        guard attribute.type == .string, case .text = bound else { return ("\(column) = ?", [bound]) }
        if attribute.storesCanonicalText { return ("\(column) = ?", [bound.canonicalText]) }
        return ("\(column) = ? COLLATE \(SQLFunctions.swiftCollation)", [bound])
    }

    /// `ORDER BY` terms for a comma-separated list of attribute names; text
    /// sorts as a `SortDescriptor` on it does (Swift's `<`, canonically
    /// equivalent texts together).
    static func orderClause(_ names: String, ascending: Bool) throws(LiteRecordError) -> String {
        let parts = names.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !parts.isEmpty else { throw LiteRecordError(.unknownAttribute, "no attribute given to sort \(entityName) by") }
        var terms: [String] = []
        for part in parts {
            let attribute = try attribute(named: part)
            let collation = attribute.type == .string ? " COLLATE \(SQLFunctions.swiftOrderCollation)" : ""
            terms.append("\(Connection.quote(attribute.name))\(collation) \(ascending ? "ASC" : "DESC")")
        }
        return terms.joined(separator: ", ")
    }
}

import Foundation
