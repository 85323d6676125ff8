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
        // Translating reads each descriptor's comparator with `Mirror`, which
        // costs more than a small query itself: translations are kept. Equal
        // descriptors translate alike: `==` compares their comparators too,
        // including the order a comparator was created with.
        return try translations.value(for: TranslationKey(Descriptors(descriptors))) { () throws(LiteRecordError) in
            try translate(descriptors)
        }
    }

    /// Translated `ORDER BY`s, by their descriptors (whose type names the entity).
    private static let translations = MemoTable<TranslationKey, String>(limit: 256)

    /// Sort descriptors of any entity as a dictionary key: the descriptors
    /// in a box of their own type, so that comparing two keys costs one class
    /// cast and `==` on the arrays. (An `AnyHashable` of the array boxed each
    /// descriptor again, on every lookup: a fifth of a cached sort's cost.)
    struct TranslationKey: Hashable, Sendable {
        let box: DescriptorsBox
        init(_ box: DescriptorsBox) { self.box = box }
        static func == (lhs: Self, rhs: Self) -> Bool { lhs.box.hash == rhs.box.hash && lhs.box.isEqual(to: rhs.box) }
        func hash(into hasher: inout Hasher) { hasher.combine(box.hash) }
    }

    /// What ``TranslationKey`` compares: a hash of the descriptors, and
    /// their equality, which ``Descriptors`` knows for its own type.
    class DescriptorsBox: @unchecked Sendable {
        // Immutable, and the subclass's one stored property is Sendable.
        let hash: Int
        init(hash: Int) { self.hash = hash }
        func isEqual(to other: DescriptorsBox) -> Bool { false }
    }

    final class Descriptors<T: Entity>: DescriptorsBox, @unchecked Sendable {
        let descriptors: [SortDescriptor<T>]
        init(_ descriptors: [SortDescriptor<T>]) {
            self.descriptors = descriptors
            var hasher = Hasher()
            hasher.combine(ObjectIdentifier(T.self))
            hasher.combine(descriptors)
            super.init(hash: hasher.finalize())
        }

        override func isEqual(to other: DescriptorsBox) -> Bool {
            guard let other = other as? Descriptors<T> else { return false }
            return other.descriptors == descriptors
        }
    }

    private static func translate<T: Entity>(_ descriptors: [SortDescriptor<T>]) throws(LiteRecordError) -> String {
        var terms: [String] = []
        for descriptor in descriptors {
            terms.append(try term(for: descriptor))
        }
        terms.append("\(SQLIdentifier.rowID) ASC")
        return terms.joined(separator: ", ")
    }

    private static func term<T: Entity>(for descriptor: SortDescriptor<T>) throws(LiteRecordError) -> String {
        guard let keyPath = descriptor.keyPath else {
            throw refusal(T.self, "a SortDescriptor without a key path (made from a key string)", "name a stored attribute with a key path")
        }
        let column: String
        if let index = T.attributeIndex(for: keyPath), T.attributes.indices.contains(index) {
            column = SQLIdentifier(T.attributes[index].name).quoted
        } else if let path = RelationshipKeyPath.names(of: keyPath, from: T.self) {
            column = try T.relatedColumn(path.joined(separator: ".")).0
        } else {
            throw refusal(
                T.self, "\(keyPath)",
                "it is not a stored attribute of \(T.entityName), nor one reached through to-one relationships with optional chaining (`\\Book.author?.name`); a @Transient or computed property cannot be sorted in SQL"
            )
        }
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
            collation = valueType.kind.orderCollation
        }
        let orders = effectiveOrders(of: descriptor, isOptionalString: valueType.isOptional && descriptor.stringComparator != nil)
        var term = "\(column)\(collation) \(orders.values == .forward ? "ASC" : "DESC")"
        // SQLite puts NULLs first ascending and last descending, as Foundation
        // does for nil unless the two orders came apart (below).
        if valueType.isOptional && orders.nils != orders.values {
            term += orders.nils == .forward ? " NULLS FIRST" : " NULLS LAST"
        }
        return term
    }

    /// The orders `sorted(using:)` really applies to values and to nils.
    ///
    /// A descriptor's comparator keeps the order it was created with, and
    /// Foundation compares values with that one; assigning `order` later changes
    /// only the property (and, for an optional `String` with a string
    /// comparator, where nils go). The comparator's order is not public, so it
    /// is read with `Mirror`; when the layout is not the expected one, `order`
    /// is taken at its word.
    static func effectiveOrders<T>(of descriptor: SortDescriptor<T>, isOptionalString: Bool) -> (values: SortOrder, nils: SortOrder) {
        let comparison = Mirror(reflecting: descriptor).children.first { $0.label == "comparison" }?.value
        let values = comparison.flatMap { firstOrder(in: $0, depth: 0) } ?? descriptor.order
        return (values, isOptionalString ? descriptor.order : values)
    }

    private static func firstOrder(in value: Any, depth: Int) -> SortOrder? {
        guard depth < 6 else { return nil }
        for child in Mirror(reflecting: value).children {
            if child.label == "order", let order = child.value as? SortOrder { return order }
            if let order = firstOrder(in: child.value, depth: depth + 1) { return order }
        }
        return nil
    }

    private static func refusal<T: Entity>(_ type: T.Type, _ subject: String, _ reason: String) -> LiteRecordError {
        LiteRecordError(
            .unsupportedPredicate,
            "cannot translate the SortDescriptor on `\(subject)` for \(T.entityName) to SQL: \(reason)")
    }
}
