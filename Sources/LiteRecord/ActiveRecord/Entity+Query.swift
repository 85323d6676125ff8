public import Foundation

extension Entity {
    /// The objects a fetch request selects.
    ///
    /// ```swift
    /// let page = try Person.fetch(FetchRequest(sortBy: [SortDescriptor(\.name)], fetchLimit: 20), in: context)
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.unsupportedPredicate` naming the
    ///   part of the predicate or sort descriptors with no exact SQL translation.
    public static func fetch(_ request: FetchRequest<Self>, in context: RecordContext) throws -> [Self] {
        try context.fetch(request)
    }

    /// Every record `predicate` accepts, ordered by `sortDescriptors` (ties, and
    /// no descriptors, keep insertion order).
    ///
    /// ```swift
    /// let over30 = try Person.findAll(matching: #Predicate { $0.age > 30 },
    ///                                 sortedBy: [SortDescriptor(\.name)], in: context)
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.unsupportedPredicate` naming the
    ///   part with no exact SQL translation, or when the store cannot be read.
    public static func findAll(
        matching predicate: Predicate<Self>, sortedBy sortDescriptors: [SortDescriptor<Self>] = [], in context: RecordContext
    ) throws -> [Self] {
        try context.fetch(FetchRequest(predicate: predicate, sortBy: sortDescriptors))
    }

    /// Every record, ordered by `sortDescriptors`.
    ///
    /// ```swift
    /// let byAge = try Person.findAll(sortedBy: [SortDescriptor(\.age, order: .reverse)], in: context)
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.unsupportedPredicate` for a sort
    ///   descriptor with no exact SQL translation.
    public static func findAll(sortedBy sortDescriptors: [SortDescriptor<Self>], in context: RecordContext) throws -> [Self] {
        try context.fetch(FetchRequest(sortBy: sortDescriptors))
    }

    /// The first record `predicate` accepts in the order of `sortDescriptors`
    /// (insertion order without them), or `nil`.
    ///
    /// ```swift
    /// let youngest = try Person.findFirst(matching: #Predicate { $0.age > 0 },
    ///                                     sortedBy: [SortDescriptor(\.age)], in: context)
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.unsupportedPredicate`, or when the
    ///   store cannot be read.
    public static func findFirst(
        matching predicate: Predicate<Self>, sortedBy sortDescriptors: [SortDescriptor<Self>] = [], in context: RecordContext
    ) throws -> Self? {
        try context.fetch(FetchRequest(predicate: predicate, sortBy: sortDescriptors, fetchLimit: 1)).first
    }

    /// The number of stored records `predicate` accepts, counted in SQL.
    ///
    /// ```swift
    /// let adults = try Person.count(matching: #Predicate { $0.age >= 18 }, in: context)
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.unsupportedPredicate`, or when the
    ///   store cannot be read.
    public static func count(matching predicate: Predicate<Self>, in context: RecordContext) throws -> Int {
        try context.count(FetchRequest(predicate: predicate))
    }

    /// Whether any stored record is accepted by `predicate`.
    ///
    /// ```swift
    /// let taken = try Person.exists(matching: #Predicate { $0.email == address }, in: context)
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.unsupportedPredicate`, or when the
    ///   store cannot be read.
    public static func exists(matching predicate: Predicate<Self>, in context: RecordContext) throws -> Bool {
        try context.exists(FetchRequest(predicate: predicate))
    }

    /// Deletes every stored record `predicate` accepts with one `DELETE`
    /// statement, committed at once (not at the next save). Objects of those
    /// records that `context` holds are forgotten by it, and the deletion is
    /// reported like a save's, so the main context forgets them too when this
    /// runs inside `RecordStack.write`. Returns the number of records deleted.
    ///
    /// ```swift
    /// let removed = try Person.deleteAll(matching: #Predicate { $0.age < 18 }, in: context)
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.unsupportedPredicate`,
    ///   `.invalidObject` in a child context (whose changes reach the store
    ///   only through its root's save), or when the store cannot be written.
    @discardableResult
    public static func deleteAll(matching predicate: Predicate<Self>, in context: RecordContext) throws -> Int {
        let condition = try PredicateTranslator.condition(predicate, model: context.store.model)
        return try context.deleteAll(Self.self, whereSQL: condition.sql, arguments: condition.arguments)
    }

    /// The records selected by a hand-written SQL condition — the part after
    /// `WHERE` — with `?` placeholders for `arguments`, which are bound (never
    /// spliced into the SQL). Results are in insertion order.
    ///
    /// ```swift
    /// let people = try Person.fetch(sql: "age > ? AND name LIKE ?", arguments: [30, "A%"], in: context)
    /// ```
    ///
    /// The condition must be one SQL expression: it is wrapped in parentheses,
    /// a `--` comment in it reaches only to the end of the condition, and SQL
    /// that would make a second statement is refused.
    ///
    /// - Throws: ``LiteRecordError`` of kind `.sqlite` for invalid SQL or a wrong
    ///   number of arguments, `.validationFailed` for an argument that cannot be
    ///   stored (NaN).
    public static func fetch(sql condition: String, arguments: [any SQLValueConvertible] = [], in context: RecordContext) throws -> [Self] {
        var query = SQLQuery()
        // The newline ends a `--` comment in the condition before the closing
        // parenthesis, which is then still part of the SQL.
        query.whereSQL = "(\(condition)\n)"
        query.arguments = try boundArguments(arguments)
        let sql = try context.entity(for: Self.self).selectSQL + query.clauses
        try context.reading("checking the SQL for \(entityName)") { connection in
            try connection.requireSingleStatement(sql)
        }
        return try context.fetch(Self.self, query)
    }

    static func boundArguments(_ arguments: [any SQLValueConvertible]) throws(LiteRecordError) -> [SQLValue] {
        var values: [SQLValue] = []
        values.reserveCapacity(arguments.count)
        for (position, argument) in arguments.enumerated() {
            do {
                values.append(try argument.comparisonValue())
            } catch let error as LiteRecordError {
                throw LiteRecordError(error.kind, "argument \(position + 1) of the SQL for \(entityName): \(error.message)")
            } catch {
                throw LiteRecordError(.validationFailed, "argument \(position + 1) of the SQL for \(entityName) cannot be bound: \(error)")
            }
        }
        return values
    }

    // MARK: Main-context forms

    /// ``fetch(_:in:)`` on the default stack's main context.
    ///
    /// - Throws: `.notSetUp` before `RecordStack.setup…`, `.unsupportedPredicate`.
    @MainActor public static func fetch(_ request: FetchRequest<Self>) throws -> [Self] {
        try fetch(request, in: RecordStack.current().mainContext)
    }

    /// ``findAll(matching:sortedBy:in:)-(Predicate<Self>,_,_)`` on the default stack's main context.
    ///
    /// ```swift
    /// let over30 = try Person.findAll(matching: #Predicate { $0.age > 30 }, sortedBy: [SortDescriptor(\.name)])
    /// ```
    ///
    /// - Throws: `.notSetUp` before `RecordStack.setup…`, `.unsupportedPredicate`.
    @MainActor public static func findAll(
        matching predicate: Predicate<Self>, sortedBy sortDescriptors: [SortDescriptor<Self>] = []
    ) throws -> [Self] {
        try findAll(matching: predicate, sortedBy: sortDescriptors, in: RecordStack.current().mainContext)
    }

    /// ``findAll(sortedBy:in:)`` on the default stack's main context.
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor public static func findAll(sortedBy sortDescriptors: [SortDescriptor<Self>]) throws -> [Self] {
        try findAll(sortedBy: sortDescriptors, in: RecordStack.current().mainContext)
    }

    /// ``findFirst(matching:sortedBy:in:)`` on the default stack's main context.
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor public static func findFirst(
        matching predicate: Predicate<Self>, sortedBy sortDescriptors: [SortDescriptor<Self>] = []
    ) throws -> Self? {
        try findFirst(matching: predicate, sortedBy: sortDescriptors, in: RecordStack.current().mainContext)
    }

    /// ``count(matching:in:)`` on the default stack's main context.
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor public static func count(matching predicate: Predicate<Self>) throws -> Int {
        try count(matching: predicate, in: RecordStack.current().mainContext)
    }

    /// ``exists(matching:in:)`` on the default stack's main context.
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor public static func exists(matching predicate: Predicate<Self>) throws -> Bool {
        try exists(matching: predicate, in: RecordStack.current().mainContext)
    }

    /// ``deleteAll(matching:in:)`` on the default stack's main context.
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor @discardableResult
    public static func deleteAll(matching predicate: Predicate<Self>) throws -> Int {
        try deleteAll(matching: predicate, in: RecordStack.current().mainContext)
    }

    /// ``fetch(sql:arguments:in:)`` on the default stack's main context.
    ///
    /// ```swift
    /// let people = try Person.fetch(sql: "age > ? AND name LIKE ?", arguments: [30, "A%"])
    /// ```
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor public static func fetch(sql condition: String, arguments: [any SQLValueConvertible] = []) throws -> [Self] {
        try fetch(sql: condition, arguments: arguments, in: RecordStack.current().mainContext)
    }
}
