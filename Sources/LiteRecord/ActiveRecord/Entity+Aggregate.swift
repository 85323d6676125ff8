public import Foundation

extension Entity {
    /// An aggregate of one attribute over the stored records `predicate`
    /// accepts (all of them without one), computed by SQLite.
    ///
    /// ```swift
    /// let total = try Person.aggregate(.sum, of: \.age, in: context)                        // Int
    /// let oldest = try Person.aggregate(.max, of: \.age,
    ///                                   matching: #Predicate { $0.isActive }, in: context)  // Int?
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.unknownAttribute` for a key path
    ///   that is not a stored attribute, `.unsupportedPredicate` for a predicate
    ///   without an exact SQL translation or a minimum/maximum of values SQL does
    ///   not order like Swift, `.sqlite` when an integer sum overflows.
    // Disfavored so that an optional attribute picks the `V?` form (nils
    // ignored) for `.count`, which both forms accept.
    @_disfavoredOverload
    public static func aggregate<V, R>(
        _ function: Aggregate<V, R>, of keyPath: KeyPath<Self, V>, matching predicate: Predicate<Self>? = nil,
        in context: RecordContext
    ) throws -> R {
        try context.aggregate(function, of: keyPath, matching: predicate)
    }

    /// An aggregate of an optional attribute over its non-nil values.
    ///
    /// ```swift
    /// let best = try Person.aggregate(.max, of: \.rank, in: context)   // Int? (nil ranks ignored)
    /// ```
    ///
    /// - Throws: as the aggregate of a non-optional attribute.
    public static func aggregate<V, R>(
        _ function: Aggregate<V, R>, of keyPath: KeyPath<Self, V?>, matching predicate: Predicate<Self>? = nil,
        in context: RecordContext
    ) throws -> R {
        try context.aggregate(function, of: keyPath, matching: predicate)
    }

    /// The aggregate for each distinct value of `group` (SQL's `GROUP BY`).
    ///
    /// ```swift
    /// let agesByStatus = try Person.aggregate(.sum, of: \.age, groupedBy: \.status, in: context)
    /// // [.active: 1234, .inactive: 567]
    /// ```
    ///
    /// Canonically equivalent strings form one group, as they are equal in
    /// Swift; a nil group key collects the records whose attribute is nil.
    ///
    /// - Throws: as the ungrouped aggregate, and `.unsupportedPredicate` for a
    ///   group attribute stored as JSON.
    @_disfavoredOverload
    public static func aggregate<V, R, G: Hashable>(
        _ function: Aggregate<V, R>, of keyPath: KeyPath<Self, V>, groupedBy group: KeyPath<Self, G>,
        matching predicate: Predicate<Self>? = nil, in context: RecordContext
    ) throws -> [G: R] {
        try context.aggregate(function, of: keyPath, groupedBy: group, matching: predicate)
    }

    /// The aggregate of an optional attribute for each distinct value of `group`.
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    public static func aggregate<V, R, G: Hashable>(
        _ function: Aggregate<V, R>, of keyPath: KeyPath<Self, V?>, groupedBy group: KeyPath<Self, G>,
        matching predicate: Predicate<Self>? = nil, in context: RecordContext
    ) throws -> [G: R] {
        try context.aggregate(function, of: keyPath, groupedBy: group, matching: predicate)
    }

    // MARK: Main-context forms

    /// The aggregate of an attribute on the default stack's main context.
    ///
    /// ```swift
    /// let total = try Person.aggregate(.sum, of: \.age)
    /// ```
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor @_disfavoredOverload
    public static func aggregate<V, R>(
        _ function: Aggregate<V, R>, of keyPath: KeyPath<Self, V>, matching predicate: Predicate<Self>? = nil
    ) throws -> R {
        try aggregate(function, of: keyPath, matching: predicate, in: RecordStack.current().mainContext)
    }

    /// The optional-attribute aggregate on the default stack's main context.
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor public static func aggregate<V, R>(
        _ function: Aggregate<V, R>, of keyPath: KeyPath<Self, V?>, matching predicate: Predicate<Self>? = nil
    ) throws -> R {
        try aggregate(function, of: keyPath, matching: predicate, in: RecordStack.current().mainContext)
    }

    /// The grouped aggregate on the default stack's main context.
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor @_disfavoredOverload
    public static func aggregate<V, R, G: Hashable>(
        _ function: Aggregate<V, R>, of keyPath: KeyPath<Self, V>, groupedBy group: KeyPath<Self, G>,
        matching predicate: Predicate<Self>? = nil
    ) throws -> [G: R] {
        try aggregate(function, of: keyPath, groupedBy: group, matching: predicate, in: RecordStack.current().mainContext)
    }

    /// The grouped optional-attribute aggregate on the default stack's main context.
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor public static func aggregate<V, R, G: Hashable>(
        _ function: Aggregate<V, R>, of keyPath: KeyPath<Self, V?>, groupedBy group: KeyPath<Self, G>,
        matching predicate: Predicate<Self>? = nil
    ) throws -> [G: R] {
        try aggregate(function, of: keyPath, groupedBy: group, matching: predicate, in: RecordStack.current().mainContext)
    }
}
