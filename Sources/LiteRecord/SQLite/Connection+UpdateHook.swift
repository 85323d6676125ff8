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
                let log = Unmanaged<RowChangeLog>.fromOpaque(context).takeUnretainedValue()
                log.changes.append(RowChange(kind: kind, table: String(cString: table), rowID: rowID))
            },
            Unmanaged.passUnretained(log).toOpaque())
    }

    func stopReportingRowChanges() {
        guard let handle else { return }
        sqlite3_update_hook(handle, nil, nil)
    }
}
