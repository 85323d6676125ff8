import Foundation

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
    /// true exactly when Swift's `==` is (``AttributeSQL/equality(_:_:)``).
    static func equalityClause(_ name: String, _ value: (any SQLValueConvertible)?) throws(LiteRecordError) -> (String, [SQLValue]) {
        let attribute = try attribute(named: name)
        do {
            return AttributeSQL.equality(attribute, try value?.comparisonValue() ?? .null)
        } catch let error as LiteRecordError {
            throw error
        } catch {
            throw LiteRecordError(.validationFailed, "the value for \(entityName).\(name) cannot be bound: \(error)")
        }
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
            terms.append(AttributeSQL.orderTerm(column, attribute, ascending: ascending))
        }
        return terms.joined(separator: ", ")
    }

    /// The SQL reading an attribute through to-one relationships
    /// (``AttributeSQL/relatedColumn(_:of:)``).
    static func relatedColumn(_ path: String) throws(LiteRecordError) -> (String, AttributeDescription) {
        try AttributeSQL.relatedColumn(path, of: Self.self)
    }
}
