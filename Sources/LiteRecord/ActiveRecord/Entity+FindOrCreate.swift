import Foundation

extension Entity where Self: DefaultInitializable {
    /// The first record whose attribute equals `value`, or a new one with that
    /// value — never a duplicate, even when several writers (tasks, stacks or
    /// processes) race for the same value.
    ///
    /// ```swift
    /// let tag = try Tag.findFirstOrCreate(byAttribute: "label", withValue: "swift", in: context)
    /// ```
    ///
    /// The lookup and the insert run in one write transaction (`BEGIN
    /// IMMEDIATE`, so no other writer can insert in between), which means a
    /// new record is saved at once: the returned object is already stored,
    /// with its other attributes at their defaults after `awakeFromInsert()`.
    /// Equality is SQLite's, like the unique index's and
    /// ``findFirst(byAttribute:withValue:in:)``'s.
    ///
    /// - Throws: ``LiteRecordError`` of kind `.unknownAttribute` for a name the
    ///   entity does not have, `.constraintViolation` when the new record breaks
    ///   a constraint (a `nil` value for a non-optional attribute, another unique
    ///   attribute), `.invalidObject` when the matching record is marked for
    ///   deletion in `context`, or when `context` is a child context (a new
    ///   record is stored at once, which a child must never do).
    public static func findFirstOrCreate(
        byAttribute attribute: String, withValue value: (any SQLValueConvertible)?, in context: RecordContext
    ) throws -> Self {
        try context.requireRoot(for: "\(entityName).findFirstOrCreate")
        if let existing = try findFirst(byAttribute: attribute, withValue: value, in: context) { return existing }
        return try context.findOrCreate(Self.self, byAttribute: attribute, withValue: value)
    }

    /// ``findFirstOrCreate(byAttribute:withValue:in:)`` on the default stack's
    /// main context.
    ///
    /// ```swift
    /// let tag = try Tag.findFirstOrCreate(byAttribute: "label", withValue: "swift")
    /// ```
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor public static func findFirstOrCreate(
        byAttribute attribute: String, withValue value: (any SQLValueConvertible)?
    ) throws -> Self {
        try findFirstOrCreate(byAttribute: attribute, withValue: value, in: RecordStack.current().mainContext)
    }
}
