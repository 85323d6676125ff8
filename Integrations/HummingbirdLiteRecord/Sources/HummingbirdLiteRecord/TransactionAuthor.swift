public import Hummingbird
public import LiteRecord

/// Who the writes of the current request are by: the `author` a commit
/// records in the store's history (``LiteRecord/RecordContext/transactionAuthor``),
/// set once per request by ``TransactionAuthorMiddleware`` (from the
/// authenticated user, the route, …) rather than in every write.
///
/// ```swift
/// try await TransactionAuthor.$current.withValue("importer") {
///     try await stack.authoredWrite { context in context.insert(Todo()) }   // recorded as "importer"
/// }
/// ```
public enum TransactionAuthor {
    /// The author of the current task's writes; `nil`: none is recorded.
    @TaskLocal public static var current: String?
}

/// Sets ``TransactionAuthor/current`` for the rest of the request, so that
/// every ``LiteRecord/RecordStack/authoredWrite(_:)`` it makes is recorded
/// under that author.
///
/// ```swift
/// router.add(middleware: TransactionAuthorMiddleware("api"))
/// router.add(middleware: TransactionAuthorMiddleware { request, _ in request.headers[.authorization] == nil ? "anonymous" : "client" })
/// ```
public struct TransactionAuthorMiddleware<Context: RequestContext>: RouterMiddleware {
    let author: @Sendable (Request, Context) -> String?

    /// The author computed from each request (`nil`: none).
    public init(_ author: @escaping @Sendable (Request, Context) -> String?) {
        self.author = author
    }

    /// The same author for every request.
    public init(_ author: String) {
        self.author = { _, _ in author }
    }

    /// Runs the rest of the request with ``TransactionAuthor/current`` set.
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await TransactionAuthor.$current.withValue(author(request, context)) {
            try await next(request, context)
        }
    }
}

extension RecordStack {
    /// `write {}` with the context's `transactionAuthor` set to
    /// ``TransactionAuthor/current`` first (the body may still set its own):
    /// the author a middleware chose for the request, without a line in
    /// every write. `write {}` itself runs on the stack's queue, where the
    /// task-local is not seen, so it is read here, before.
    ///
    /// ```swift
    /// let id = try await stack.authoredWrite { context in
    ///     let todo = Todo()
    ///     context.insert(todo)
    ///     try context.save()
    ///     return todo.recordID?.rowID
    /// }
    /// ```
    ///
    /// - Throws: what `write {}` throws: the body's error or the store's,
    ///   after rolling back.
    public func authoredWrite<T: Sendable>(_ body: @Sendable (RecordContext) throws -> T) async throws -> T {
        let author = TransactionAuthor.current
        return try await write { context in
            context.transactionAuthor = author
            return try body(context)
        }
    }
}
