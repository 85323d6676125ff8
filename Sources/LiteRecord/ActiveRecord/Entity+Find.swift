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

    /// The record whose ``RecordID/rowID`` is `rowID` — the number a user
    /// typed (`todo done 7`) or a URL carries (`GET /bookmarks/7`) — or `nil`
    /// when there is no such row (never saved, deleted, or a number such as
    /// `0` or `-1` that no row has).
    ///
    /// The object this context already holds is returned when it has one; an
    /// object deleted in the context but not yet saved is not found.
    ///
    /// ```swift
    /// guard let todo = try Todo.find(rowID: 7, in: context) else {
    ///     print("there is no todo 7")
    ///     return
    /// }
    /// todo.isDone = true
    /// try context.save()
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` when the store cannot be read, or of kind
    ///   `.invalidObject` when the stack's model lacks the entity.
    public static func find(rowID: Int64, in context: RecordContext) throws -> Self? {
        try context.existingObject(with: RecordID(entityName: entityName, rowID: rowID), as: Self.self)
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

    /// ``find(rowID:in:)`` on the default stack's main context.
    ///
    /// ```swift
    /// let todo = try Todo.find(rowID: 7)   // nil when there is no todo 7
    /// ```
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor public static func find(rowID: Int64) throws -> Self? {
        try find(rowID: rowID, in: RecordStack.current().mainContext)
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
