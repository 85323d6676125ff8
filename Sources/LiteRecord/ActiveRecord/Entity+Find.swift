extension Entity {
    /// Every stored record of the entity, in insertion order.
    ///
    /// ```swift
    /// let everyone = try Person.findAll(in: context)
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` when the store cannot be read.
    public static func findAll(in context: RecordContext) throws -> [Self] {
        try context.fetch(Self.self, SQLQuery())
    }

    /// Every stored record, sorted by one attribute (or several, comma-separated).
    ///
    /// ```swift
    /// let byName = try Person.findAll(sortedBy: "name", ascending: true, in: context)
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.unknownAttribute` for a name the
    ///   entity does not have.
    public static func findAll(sortedBy attribute: String, ascending: Bool = true, in context: RecordContext) throws -> [Self] {
        var query = SQLQuery()
        query.orderBy = try orderClause(attribute, ascending: ascending)
        return try context.fetch(Self.self, query)
    }

    /// The first record whose attribute equals `value` (`nil` matches `NULL`).
    ///
    /// ```swift
    /// let ann = try Person.findFirst(byAttribute: "name", withValue: "Ann", in: context)
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.unknownAttribute` for a name the
    ///   entity does not have. The value is always bound, never spliced into SQL.
    public static func findFirst(
        byAttribute attribute: String, withValue value: (any SQLValueConvertible)?, in context: RecordContext
    ) throws -> Self? {
        var query = SQLQuery()
        let (condition, arguments) = try equalityClause(attribute, value)
        query.whereSQL = condition
        query.arguments = arguments
        query.limit = 1
        return try context.fetch(Self.self, query).first
    }

    /// Every record whose attribute equals `value`, in insertion order.
    ///
    /// ```swift
    /// let thirtyOne = try Person.find(byAttribute: "age", withValue: 31, in: context)
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.unknownAttribute`.
    public static func find(
        byAttribute attribute: String, withValue value: (any SQLValueConvertible)?, in context: RecordContext
    ) throws -> [Self] {
        var query = SQLQuery()
        let (condition, arguments) = try equalityClause(attribute, value)
        query.whereSQL = condition
        query.arguments = arguments
        return try context.fetch(Self.self, query)
    }

    /// The number of stored records.
    ///
    /// - Throws: ``LiteRecordError`` when the store cannot be read.
    public static func count(in context: RecordContext) throws -> Int {
        try context.count(Self.self, whereSQL: nil, arguments: [])
    }

    // MARK: Main-context forms

    /// ``findAll(in:)`` on the default stack's main context.
    ///
    /// - Throws: `.notSetUp` before `RecordStack.setup…`.
    @MainActor public static func findAll() throws -> [Self] {
        try findAll(in: RecordStack.current().mainContext)
    }

    /// ``findAll(sortedBy:ascending:in:)`` on the default stack's main context.
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor public static func findAll(sortedBy attribute: String, ascending: Bool = true) throws -> [Self] {
        try findAll(sortedBy: attribute, ascending: ascending, in: RecordStack.current().mainContext)
    }

    /// ``findFirst(byAttribute:withValue:in:)`` on the default stack's main context.
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor public static func findFirst(byAttribute attribute: String, withValue value: (any SQLValueConvertible)?) throws -> Self? {
        try findFirst(byAttribute: attribute, withValue: value, in: RecordStack.current().mainContext)
    }

    /// ``find(byAttribute:withValue:in:)`` on the default stack's main context.
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor public static func find(byAttribute attribute: String, withValue value: (any SQLValueConvertible)?) throws -> [Self] {
        try find(byAttribute: attribute, withValue: value, in: RecordStack.current().mainContext)
    }

    /// ``count(in:)`` on the default stack's main context.
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor public static func count() throws -> Int {
        try count(in: RecordStack.current().mainContext)
    }
}
