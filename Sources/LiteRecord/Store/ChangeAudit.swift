import Foundation

/// Checks, at every commit, that the change set the library's writes noted
/// (``Store/noteCommitted(_:by:updatedNames:)``: what subscribers, observers,
/// merges and the persistent history receive) is exactly what SQLite
/// changed in the entity tables, as its update hook reports it. A write
/// path that forgets to note its rows — or notes rows it did not write —
/// fails its commit with the difference, instead of leaving observers and
/// history silently behind.
///
/// For tests: on when the process runs with `LITERECORD_AUDIT_CHANGES=1`
/// (`make test` sets it, so every test's writes are audited), or for one
/// store by ``Store/startAuditingChanges()``. Off, it costs nothing.
final class ChangeAudit: TransactionParticipant {
    /// One variable read with `getenv`: `ProcessInfo.environment` copies the
    /// whole environment into a dictionary, which cost every writable open
    /// 0.4M instructions.
    static let enabledByEnvironment = getenv("LITERECORD_AUDIT_CHANGES").map { String(cString: $0) } == "1"

    let log = Connection.RowChangeLog()
    private let entityNames: Set<String>
    /// Set by ``Store/rawWrite(_:_:)`` for the open transaction: raw SQL
    /// that no change set describes, on purpose.
    var isSuspended = false

    init(model: Model) {
        entityNames = Set(model.entities.map(\.name))
    }

    var mark: Int { log.changes.count }

    /// Forgets what the hook reported after `mark` (a rolled-back
    /// savepoint's rows); at 0, all of it and the suspension too.
    func rollback(to mark: Int) {
        log.changes.removeSubrange(mark...)
        if mark == 0 { isSuspended = false }
    }

    /// Forgets what the hook reported in a rolled-back transaction.
    func rollbackTransaction() { rollback(to: 0) }

    /// Compares the entity rows the transaction changed with `noted`; returns
    /// the difference, or `nil` when they agree. Empties the log.
    func verify(_ noted: ChangeSet) -> String? {
        defer {
            log.changes.removeAll()
            isSuspended = false
        }
        guard !isSuspended else { return nil }
        let events = log.changes.compactMap { change -> HistoryEvent? in
            guard entityNames.contains(change.table) else { return nil }
            let kind: HistoryChange.Kind =
                switch change.kind {
                case .insert: .insert
                case .update: .update
                case .delete: .delete
                }
            return HistoryEvent(id: RecordID(entityName: change.table, rowID: change.rowID), kind: kind, names: [])
        }
        let changed = HistoryEvent.net(events)
        let written = Dictionary(changed.changes.map { ($0.id, $0.kind) }, uniquingKeysWith: { first, _ in first })
        var expected: [RecordID: HistoryChange.Kind] = [:]
        for id in noted.inserted { expected[id] = .insert }
        for id in noted.updated { expected[id] = .update }
        for id in noted.deleted { expected[id] = .delete }
        guard written != expected else { return nil }
        let unnoted = written.filter { expected[$0.key] != $0.value }.map { "\($0.value) \($0.key)" }.sorted()
        let unwritten = expected.filter { written[$0.key] != $0.value }.map { "\($0.value) \($0.key)" }.sorted()
        return "change audit: SQLite changed \(unnoted.prefix(10)) that the change set does not say, and the change set says \(unwritten.prefix(10)) that SQLite did not change"
    }
}

extension Store {
    /// For tests that change rows behind the library's back (a damaged
    /// value, a row id taken by hand): ``write(_:_:)`` with the audit
    /// skipping the transaction, since no change set describes raw SQL.
    func rawWrite<T>(_ operation: @autoclosure () -> String, _ body: (Connection) throws -> T) throws(LiteRecordError) -> T {
        try write(operation()) { connection in
            writer.changeAudit?.isSuspended = true
            return try body(connection)
        }
    }

    /// Audits every later commit of this store (``ChangeAudit``).
    func startAuditingChanges() {
        gate.withState { state in
            guard let connection = state.connection, state.changeAudit == nil else { return }
            let audit = ChangeAudit(model: model)
            connection.reportRowChanges(into: audit.log)
            state.changeAudit = audit
        }
    }
}
