import Foundation

/// Turns `SortDescriptor`s into an `ORDER BY` that orders rows exactly as
/// `sorted(using:)` orders the objects.
///
/// - Text is ordered by a collation that runs the descriptor's own comparison:
///   the `String.StandardComparator` when there is one (`.localizedStandard`
///   is the default for a `String` key path on Apple platforms), Swift's `<`
///   for a `Comparable` key path (as the total order it is meant to be, see
///   ``SQLFunctions/swiftOrderCollation``).
/// - `nil` sorts before every value in ascending order, as Foundation's
///   optional comparison does and as SQLite's NULLs do.
/// - The primary key breaks ties, because `sorted(using:)` is stable and the
///   objects it is compared with are in insertion order.
enum SortTranslator {
    static func orderBy<T: Entity>(_ descriptors: [SortDescriptor<T>]) throws(LiteRecordError) -> String? {
        guard !descriptors.isEmpty else { return nil }
        var terms: [String] = []
        for descriptor in descriptors {
            terms.append(try term(for: descriptor))
        }
        terms.append("\(Connection.quote(Model.primaryKeyColumn)) ASC")
        return terms.joined(separator: ", ")
    }

    private static func term<T: Entity>(for descriptor: SortDescriptor<T>) throws(LiteRecordError) -> String {
        guard let keyPath = descriptor.keyPath else {
            throw refusal(T.self, "a SortDescriptor without a key path (made from a key string)", "name a stored attribute with a key path")
        }
        guard let index = T.attributeIndex(for: keyPath), T.attributes.indices.contains(index) else {
            throw refusal(
                T.self, "\(keyPath)",
                "it is not a stored attribute of \(T.entityName) (a @Transient or computed property cannot be sorted in SQL)")
        }
        let attribute = T.attributes[index]
        let valueType = ValueType(type(of: keyPath).valueType)
        let collation: String
        if let comparator = descriptor.stringComparator {
            guard valueType.kind == .string, let name = SQLFunctions.collation(for: comparator) else {
                throw refusal(T.self, "\(keyPath)", "its string comparator has no SQL collation")
            }
            collation = " COLLATE \(name)"
        } else {
            guard valueType.kind.isOrderable else {
                throw refusal(
                    T.self, "\(keyPath)",
                    "\(valueType.kind) values are not ordered the same way in SQL (an enum's `<` is its own, not its raw value's)")
            }
            collation = valueType.kind == .string ? " COLLATE \(SQLFunctions.swiftOrderCollation)" : ""
        }
        let direction = descriptor.order == .forward ? "ASC" : "DESC"
        return "\(Connection.quote(attribute.name))\(collation) \(direction)"
    }

    private static func refusal<T: Entity>(_ type: T.Type, _ subject: String, _ reason: String) -> LiteRecordError {
        LiteRecordError(
            .unsupportedPredicate,
            "cannot translate the SortDescriptor on `\(subject)` for \(T.entityName) to SQL: \(reason)")
    }
}
