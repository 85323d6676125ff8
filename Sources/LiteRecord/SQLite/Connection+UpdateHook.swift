internal import CSQLite

extension Connection {
    /// One row change SQLite reported through its update hook.
    struct RowChange {
        enum Kind { case insert, update, delete }
        let kind: Kind
        let table: String
        let rowID: Int64
    }

    /// Receives the hook's reports; SQLite hands it to the callback.
    final class RowChangeLog {
        var changes: [RowChange] = []
    }

    /// Starts reporting every row this connection inserts, updates or
    /// deletes in a rowid table into `log` (SQLite's update hook,
    /// https://sqlite.org/c3ref/update_hook.html), until the connection
    /// closes or ``stopReportingRowChanges()``. For the change audit
    /// (``ChangeAudit``), never on the ordinary path.
    ///
    /// The caller keeps `log` alive until it stops the reports: the hook
    /// holds it unretained.
    func reportRowChanges(into log: RowChangeLog) {
        guard let handle else { return }
        sqlite3_update_hook(
            handle,
            { context, operation, _, table, rowID in
                guard let context, let table else { return }
                let kind: RowChange.Kind =
                    switch operation {
                    case SQLITE_INSERT: .insert
                    case SQLITE_DELETE: .delete
                    default: .update
                    }
                // unsafe(box-lives-while-registered): the caller keeps the log
                // alive while the hook is installed.
                let log = Unmanaged<RowChangeLog>.fromOpaque(context).takeUnretainedValue()
                log.changes.append(RowChange(kind: kind, table: String(cString: table), rowID: rowID))
            },
            Unmanaged.passUnretained(log).toOpaque())  // unsafe(box-lives-while-registered)
    }

    func stopReportingRowChanges() {
        guard let handle else { return }
        sqlite3_update_hook(handle, nil, nil)
    }
}
