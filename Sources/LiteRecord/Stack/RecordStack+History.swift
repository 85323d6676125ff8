public import Foundation

extension RecordStack {
    /// Opens (or creates) the store file at `url`, choosing whether it keeps
    /// its persistent history (Docs/History.md).
    ///
    /// ```swift
    /// let stack = try RecordStack(storeAt: url, entities: [Note.self], history: .enabled)
    /// ```
    ///
    /// - Parameters:
    ///   - url: the store file; it is created, with its folder, when missing.
    ///   - entities: the entity types of the model.
    ///   - migration: as in ``init(storeAt:entities:migration:onModelMismatch:)``.
    ///   - onModelMismatch: as in ``init(storeAt:entities:migration:onModelMismatch:)``.
    ///   - checkpoints: as in ``init(storeAt:entities:migration:onModelMismatch:checkpoints:)``.
    ///   - history: `.enabled` (or `.enabled(keepingFor:)`) records a
    ///     transaction for every commit that changes rows; `.disabled` records
    ///     none and deletes what the store kept. The initializers without
    ///     `history:` record exactly when the store already does.
    /// - Throws: ``LiteRecordError`` of kind `.modelMismatch`, `.migrationFailed`,
    ///   `.invalidModel`, `.corruptStore` or `.storeUnavailable`.
    public convenience init(
        storeAt url: URL,
        entities: [any Entity.Type],
        migration: MigrationMode = .none,
        onModelMismatch: ModelMismatchPolicy = .fail,
        checkpoints: CheckpointPolicy = .automatic,
        history: HistoryOptions
    ) throws {
        let model = try Model(entities: entities)
        let store = try Store(
            location: .file(url.standardizedFileURL), model: model,
            options: StoreOpenOptions(
                migration: migration, onMismatch: onModelMismatch, checkpoints: checkpoints, history: history,
                memoryMappedReadSize: Self.memoryMappedReadSize))
        self.init(store: store)
    }

    /// Creates an empty in-memory store for `entities` that keeps its history
    /// as `history` says.
    ///
    /// ```swift
    /// let stack = try RecordStack(inMemoryWith: [Note.self], history: .enabled)
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.invalidModel`.
    public convenience init(inMemoryWith entities: [any Entity.Type], history: HistoryOptions) throws {
        let model = try Model(entities: entities)
        let store = try Store(location: .memory, model: model, options: StoreOpenOptions(history: history))
        self.init(store: store)
    }

    /// Whether this stack's commits record history: the store keeps it.
    public var recordsHistory: Bool {
        store.gate.withState { $0.history.isRecording }
    }

    /// The transactions committed after `token`, oldest first — by this
    /// stack, another stack or another process — with the changes `filter`
    /// keeps (Core Data's `fetchHistory(after:)`). `nil` starts from the
    /// oldest transaction kept. Another process's transaction is here as soon
    /// as its commit returns.
    ///
    /// ```swift
    /// let transactions = try stack.fetchHistory(after: lastToken, matching: .notAuthor("app"))
    /// for transaction in transactions {
    ///     try context.merge(history: transaction)
    ///     lastToken = transaction.token
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - token: the last transaction already processed, or `nil`.
    ///   - filter: which transactions and changes to return; a transaction
    ///     left without a change by an entity filter is skipped.
    ///   - limit: at most this many transactions (the oldest ones); `nil` for all.
    /// - Throws: ``LiteRecordError`` of kind `.historyExpired` when `token` is
    ///   older than what the store keeps or from another store,
    ///   `.storeUnavailable` when the store keeps no history.
    public func fetchHistory(
        after token: HistoryToken?, matching filter: HistoryFilter = .all, limit: Int? = nil
    ) throws -> [HistoryTransaction] {
        if let limit, limit < 1 { throw LiteRecordError(.invalidObject, "fetchHistory's limit must be at least 1, not \(limit)") }
        return try store.withReaderPassingCallerErrors("reading the history") { connection in
            try store.readHistory(after: token, matching: filter, limit: limit, on: connection)
        }
    }

    /// The token of the newest transaction in the history, or `nil` when there
    /// is none yet: where to start following the history from now on.
    ///
    /// ```swift
    /// var token = try stack.newestHistoryToken()
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.storeUnavailable` when the store keeps no history.
    public func newestHistoryToken() throws -> HistoryToken? {
        try store.withReaderPassingCallerErrors("reading the history") { connection in
            let storeID = try store.historyStoreID(on: connection)
            let newest = try store.newestHistoryNumber(on: connection)
            return newest == 0 ? nil : HistoryToken(transactionNumber: newest, storeID: storeID)
        }
    }

    /// Deletes the transactions before `token` (not `token`'s own), and
    /// returns how many went (Core Data's `deleteHistory(before:)`). A later
    /// ``fetchHistory(after:matching:limit:)`` with a token older than the
    /// last one deleted throws `.historyExpired`.
    ///
    /// ```swift
    /// try stack.deleteHistory(before: everyReaderIsPast)
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.historyExpired` for another
    ///   store's token, `.storeUnavailable` when the store keeps no history,
    ///   `.readOnlyStore` for a read-only stack.
    @discardableResult
    public func deleteHistory(before token: HistoryToken) throws -> Int {
        try store.writePassingCallerErrors("deleting history") { connection in
            let storeID = try store.historyStoreID(on: connection)
            guard token.storeID == storeID else {
                throw LiteRecordError(
                    .historyExpired, "history token \(token) is not from \(store.displayName) (its history identifier is \(storeID)); nothing was deleted")
            }
            return try store.purgeHistory(where: "token < ?", [.integer(token.transactionNumber)], on: connection)
        }
    }

    /// The transactions after `token` that `filter` keeps, then each new one
    /// as it commits — in this process or another (another process's within
    /// the observation interval, 0.25 s). The sequence ends when the stack
    /// closes, and throws what reading the history throws (`.historyExpired`
    /// among them).
    ///
    /// ```swift
    /// for try await transaction in stack.history(after: token) {
    ///     try context.merge(history: transaction)
    /// }
    /// ```
    public func history(
        after token: HistoryToken?, matching filter: HistoryFilter = .all
    ) -> AsyncThrowingStream<HistoryTransaction, any Error> {
        let store = self.store
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: HistoryTransaction.self)
        let task = Task {
            let entities = Set(store.model.entities.map(\.name))
            guard let wakeups = store.observations.subscribe(entities: entities, dataVersion: { [weak store] wait in store?.dataVersion(wait: wait) })
            else { return continuation.finish() }
            var iterator = wakeups.makeAsyncIterator()
            var last = token
            do {
                repeat {
                    let batch = try await withTaskExecutorPreference(StoreExecutors.reads) {
                        try store.withReaderPassingCallerErrors("reading the history") { connection in
                            // Up to the newest now, so that transactions the filter
                            // skips are not read again at the next wake-up.
                            let storeID = try store.historyStoreID(on: connection)
                            let newest = try store.newestHistoryNumber(on: connection)
                            let found = try store.readHistory(after: last, through: newest, matching: filter, limit: nil, on: connection)
                            return (found, newest > (last?.transactionNumber ?? 0) ? HistoryToken(transactionNumber: newest, storeID: storeID) : last)
                        }
                    }
                    for transaction in batch.0 { continuation.yield(transaction) }
                    last = batch.1
                } while await iterator.next() != nil && !Task.isCancelled
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

extension RecordContext {
    /// Brings the objects this context holds up to date with a transaction
    /// of the store's history, as a save's change set does: deleted records'
    /// objects are forgotten, updated ones re-read, except attributes edited
    /// here and not saved yet (Core Data's `mergeChanges(fromContextDidSave:)`
    /// with a history transaction's notification).
    ///
    /// ```swift
    /// for transaction in try stack.fetchHistory(after: token) {
    ///     try context.merge(history: transaction)
    /// }
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.invalidObject` for a child
    ///   context (merge into its parent).
    public func merge(history transaction: HistoryTransaction) throws {
        try merge(history: [transaction])
    }

    /// ``merge(history:)-(HistoryTransaction)`` for several transactions at once, in order.
    ///
    /// - Throws: as ``merge(history:)-(HistoryTransaction)``.
    public func merge(history transactions: [HistoryTransaction]) throws {
        guard parent == nil else {
            throw LiteRecordError(.invalidObject, "merge(history:) merges into a context of the store; a child context takes its parent's state when it is made")
        }
        let changes = ChangeSet(merging: transactions.map(\.changeSet))
        guard !changes.isEmpty else { return }
        merge(changes)
    }
}
