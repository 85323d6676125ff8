public import LiteRecord
public import Vapor

extension Application {
    /// LiteRecord's place in the application: the stack the routes use, and
    /// its closing at shutdown.
    ///
    /// ```swift
    /// let app = try await Application.make(.detect())
    /// app.liteRecord.use(try RecordStack(storeAt: url, entities: [Product.self], migration: .automatic))
    /// ```
    public var liteRecord: LiteRecord { LiteRecord(application: self) }

    /// The application's ``RecordStack``, set once by ``use(_:)``.
    public struct LiteRecord: Sendable {
        let application: Application

        struct Key: StorageKey {
            typealias Value = RecordStack
        }

        /// Makes `stack` the application's and closes it when the application
        /// shuts down, after its HTTP server has stopped and drained its
        /// requests (``RecordStackLifecycle``). Call it once, while
        /// configuring, before the application boots.
        ///
        /// ```swift
        /// app.liteRecord.use(stack)
        /// ```
        public func use(_ stack: RecordStack) {
            application.storage[Key.self] = stack
            application.lifecycle.use(RecordStackLifecycle(stack))
        }

        /// The stack given to ``use(_:)``.
        ///
        /// ```swift
        /// let count = try await app.liteRecord.stack.read { try Product.count(in: $0) }
        /// ```
        ///
        /// - Throws: ``ProblemDetails`` 500 when ``use(_:)`` was never
        ///   called: a configuration mistake, answered, not trapped on.
        public var stack: RecordStack {
            get throws {
                guard let stack = application.storage[Key.self] else {
                    throw ProblemDetails(.internalServerError, detail: "no RecordStack is configured: call app.liteRecord.use(_:) while configuring")
                }
                return stack
            }
        }
    }
}

extension Request {
    /// LiteRecord for this request: the application's stack.
    ///
    /// ```swift
    /// app.get("products", "count") { req in
    ///     try await req.liteRecord.stack.read { try Product.count(in: $0) }.description
    /// }
    /// ```
    public var liteRecord: LiteRecord { LiteRecord(request: self) }

    /// The request's view of ``Vapor/Application/LiteRecord``.
    public struct LiteRecord: Sendable {
        let request: Request

        /// The application's stack (``Vapor/Application/LiteRecord/use(_:)``).
        ///
        /// ```swift
        /// try await req.liteRecord.stack.write { store in store.insert(Product()) }
        /// ```
        ///
        /// - Throws: ``ProblemDetails`` 500 when the application has no stack.
        public var stack: RecordStack {
            get throws { try request.application.liteRecord.stack }
        }
    }
}

/// Closes a ``RecordStack`` when the application shuts down, which waits for
/// its queued writes. ``Vapor/Application/LiteRecord/use(_:)`` registers one;
/// register it yourself for a second stack.
///
/// Vapor runs lifecycle handlers before it stops its HTTP server (that is
/// part of clearing the application's storage), so this handler stops the
/// server first: the server stops accepting connections and drains its
/// requests, and only then does the stack close, with nothing left using it.
///
/// ```swift
/// app.lifecycle.use(RecordStackLifecycle(archive))
/// ```
public struct RecordStackLifecycle: LifecycleHandler {
    /// The stack this handler closes.
    public let stack: RecordStack

    /// A handler that closes `stack` at shutdown.
    ///
    /// ```swift
    /// let handler = RecordStackLifecycle(stack)
    /// ```
    public init(_ stack: RecordStack) {
        self.stack = stack
    }

    /// Stops the HTTP server (nothing when it is not running), then closes
    /// the stack; a failed close is logged (the store is intact then).
    public func shutdownAsync(_ application: Application) async {
        await application.server.shutdown()
        do {
            try stack.close()
        } catch {
            application.logger.error("closing the RecordStack failed: \(error)")
        }
    }

    /// The blocking form, for an application shut down with `shutdown()`:
    /// the same order.
    public func shutdown(_ application: Application) {
        application.server.shutdown()
        do {
            try stack.close()
        } catch {
            application.logger.error("closing the RecordStack failed: \(error)")
        }
    }
}
