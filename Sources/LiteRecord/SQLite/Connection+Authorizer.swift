internal import CSQLite

extension Connection {
    /// A statement that ``refusingTransactionControl(_:)`` refused to prepare.
    struct RefusedTransactionControl: Error {
        /// What the statement tried, e.g. `COMMIT` or `SAVEPOINT RELEASE "x"`.
        let operation: String
    }

    /// Collects what the authorizer refused; SQLite hands it to the callback.
    private final class Refusals {
        var operations: [String] = []
    }

    /// Runs `body` with every statement that controls transactions (`BEGIN`,
    /// `COMMIT`, `END`, `ROLLBACK`, `SAVEPOINT`, `RELEASE`, `ROLLBACK TO`)
    /// refused when SQLite prepares it, before it can run: the authorizer
    /// answers `SQLITE_DENY` to `SQLITE_TRANSACTION` and `SQLITE_SAVEPOINT`
    /// (https://sqlite.org/c3ref/set_authorizer.html). Statements are
    /// prepared inside `body` (or re-prepared after a schema change while it
    /// runs), so the check cannot be bypassed by statements already cached.
    ///
    /// A transaction can also end without any such statement: `INSERT OR
    /// ROLLBACK` meeting a constraint, a trigger's `RAISE(ROLLBACK)`, a full
    /// disk. Every statement after that would run in autocommit mode and
    /// commit on its own. So every commit is refused while `body` runs: the
    /// commit hook answers non-zero, which turns the commit into a rollback
    /// (https://sqlite.org/c3ref/commit_hook.html). The caller checks that
    /// its transaction is still open afterwards.
    ///
    /// - Throws: ``RefusedTransactionControl`` when `body` tried such a
    ///   statement, even if `body` caught SQLite's error and went on;
    ///   otherwise whatever `body` throws.
    func refusingTransactionControl<T>(_ body: () throws -> T) throws -> T {
        guard let handle else { return try body() }
        // unsafe(box-lives-while-registered): retained here, released by the
        // `defer` below after the authorizer is removed.
        let refusals = Unmanaged.passRetained(Refusals())
        sqlite3_set_authorizer(
            handle,
            { context, action, first, second, _, _ in
                guard action == SQLITE_TRANSACTION || action == SQLITE_SAVEPOINT, let context else { return SQLITE_OK }
                var operation = first.map { String(cString: $0) } ?? "?"
                if action == SQLITE_SAVEPOINT {
                    operation = "SAVEPOINT " + operation + (second.map { " \"\(String(cString: $0))\"" } ?? "")
                }
                // unsafe(box-lives-while-registered)
                Unmanaged<Refusals>.fromOpaque(context).takeUnretainedValue().operations.append(operation)
                return SQLITE_DENY
            },
            refusals.toOpaque())
        sqlite3_commit_hook(handle, { _ in 1 }, nil)
        defer {
            sqlite3_commit_hook(handle, nil, nil)
            sqlite3_set_authorizer(handle, nil, nil)
            refusals.release()
        }
        let result: T
        do {
            result = try body()
        } catch {
            if let first = refusals.takeUnretainedValue().operations.first { throw RefusedTransactionControl(operation: first) }
            throw error
        }
        if let first = refusals.takeUnretainedValue().operations.first { throw RefusedTransactionControl(operation: first) }
        return result
    }
}
