public import LiteRecord
public import ServiceLifecycle

/// A ``LiteRecord/RecordStack`` as a service of a `ServiceGroup`: it runs
/// until the group shuts down gracefully (or is cancelled), then closes the
/// stack, which waits for its queued writes.
///
/// A `ServiceGroup` shuts its services down in the reverse of their order, so
/// list the stack **before** the HTTP application: the server stops accepting
/// connections and drains its requests first, and only then does the stack
/// close, with nothing left using it.
///
/// ```swift
/// let stack = try RecordStack(storeAt: url, entities: [Todo.self], migration: .automatic)
/// let app = Application(router: router)
/// let group = ServiceGroup(configuration: .init(
///     services: [RecordStackService(stack), app],
///     gracefulShutdownSignals: [.sigterm, .sigint],
///     logger: logger))
/// try await group.run()
/// ```
public struct RecordStackService: Service {
    /// The stack this service closes.
    public let stack: RecordStack

    /// A service that closes `stack` when the group shuts down.
    ///
    /// ```swift
    /// let service = RecordStackService(stack)
    /// ```
    public init(_ stack: RecordStack) {
        self.stack = stack
    }

    /// Waits for the group's graceful shutdown (or cancellation), then closes
    /// the stack.
    ///
    /// - Throws: the `LiteRecordError` of `close()`, such as a checkpoint that
    ///   failed; the store is intact then.
    public func run() async throws {
        // Returns on graceful shutdown; throws CancellationError when the
        // group is cancelled instead. Either way the stack closes.
        try? await gracefulShutdown()
        try stack.close()
    }
}
