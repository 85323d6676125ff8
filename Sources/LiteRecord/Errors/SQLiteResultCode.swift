/// A SQLite result code by name: the primary codes (`SQLITE_BUSY`) and the
/// extended ones that refine them (`SQLITE_CONSTRAINT_UNIQUE`), as
/// ``LiteRecordError/sqliteCode`` and ``LiteRecordError/extendedSQLiteCode``
/// carry them.
///
/// Compare with the named constants; ``name`` is SQLite's own spelling, for
/// logs. The values are SQLite's, which never change between releases, so a
/// code SQLite adds later still compares by ``rawValue`` and is named by its
/// primary code.
///
/// ```swift
/// do { try context.save() } catch let error as LiteRecordError {
///     if error.extendedSQLiteCode == .constraintUnique { print("already taken") }
///     if error.sqliteCode == .busy { print("another process holds the lock") }
/// }
/// ```
public struct SQLiteResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// SQLite's number for the code, as `sqlite3_extended_errcode` returns it.
    public let rawValue: Int32

    /// The code SQLite numbers `rawValue`.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The primary code: the code itself for a primary code, the code an
    /// extended one refines otherwise (``constraint`` for ``constraintUnique``).
    public var primary: SQLiteResultCode { SQLiteResultCode(rawValue: rawValue & 0xFF) }

    /// Whether this is an extended code, one that refines a primary code.
    public var isExtended: Bool { rawValue > 0xFF }

    /// SQLite's name for the code (`SQLITE_CONSTRAINT_UNIQUE`); for a code
    /// this version does not know, its primary code's name and its number
    /// (`SQLITE_IOERR (extended 6410)`).
    public var name: String {
        if let known = Self.names[rawValue] { return known }
        let primary = Self.names[rawValue & 0xFF] ?? "SQLITE_UNKNOWN"
        return isExtended ? "\(primary) (extended \(rawValue))" : "\(primary) (\(rawValue))"
    }

    /// ``name`` and the number: `SQLITE_CONSTRAINT_UNIQUE (2067)`.
    public var description: String { Self.names[rawValue] != nil ? "\(name) (\(rawValue))" : name }

    // MARK: Primary codes

    /// `SQLITE_OK` (0): The call succeeded.
    public static let ok = SQLiteResultCode(rawValue: 0)
    /// `SQLITE_ERROR` (1): A generic failure: bad SQL, a missing table, a failed function.
    public static let error = SQLiteResultCode(rawValue: 1)
    /// `SQLITE_INTERNAL` (2): SQLite met an inconsistency inside itself.
    public static let internalError = SQLiteResultCode(rawValue: 2)
    /// `SQLITE_PERM` (3): The file's permissions refused the access mode asked for.
    public static let permission = SQLiteResultCode(rawValue: 3)
    /// `SQLITE_ABORT` (4): A callback asked SQLite to stop the operation.
    public static let abort = SQLiteResultCode(rawValue: 4)
    /// `SQLITE_BUSY` (5): Another connection holds the lock the call needs.
    public static let busy = SQLiteResultCode(rawValue: 5)
    /// `SQLITE_LOCKED` (6): A conflict on a lock inside this process (a shared cache or a statement in progress).
    public static let locked = SQLiteResultCode(rawValue: 6)
    /// `SQLITE_NOMEM` (7): SQLite could not allocate memory.
    public static let noMemory = SQLiteResultCode(rawValue: 7)
    /// `SQLITE_READONLY` (8): A write to a store that is opened, or can only be opened, for reading.
    public static let readOnly = SQLiteResultCode(rawValue: 8)
    /// `SQLITE_INTERRUPT` (9): The operation was interrupted (`sqlite3_interrupt`).
    public static let interrupt = SQLiteResultCode(rawValue: 9)
    /// `SQLITE_IOERR` (10): The operating system reported a read, write, sync or lock failure.
    public static let ioError = SQLiteResultCode(rawValue: 10)
    /// `SQLITE_CORRUPT` (11): The file's pages are damaged.
    public static let corrupt = SQLiteResultCode(rawValue: 11)
    /// `SQLITE_NOTFOUND` (12): A file-control or other lookup found nothing to act on.
    public static let notFound = SQLiteResultCode(rawValue: 12)
    /// `SQLITE_FULL` (13): The disk (or the store's size limit) is full.
    public static let full = SQLiteResultCode(rawValue: 13)
    /// `SQLITE_CANTOPEN` (14): The file, or its folder, cannot be opened.
    public static let cannotOpen = SQLiteResultCode(rawValue: 14)
    /// `SQLITE_PROTOCOL` (15): The file-locking protocol failed (a lock race in WAL mode).
    public static let `protocol` = SQLiteResultCode(rawValue: 15)
    /// `SQLITE_EMPTY` (16): Not returned by current SQLite.
    public static let empty = SQLiteResultCode(rawValue: 16)
    /// `SQLITE_SCHEMA` (17): The schema changed under a prepared statement.
    public static let schema = SQLiteResultCode(rawValue: 17)
    /// `SQLITE_TOOBIG` (18): A string, blob or row is over SQLite's size limits.
    public static let tooBig = SQLiteResultCode(rawValue: 18)
    /// `SQLITE_CONSTRAINT` (19): A constraint (UNIQUE, NOT NULL, CHECK, FOREIGN KEY) rejected the change.
    public static let constraint = SQLiteResultCode(rawValue: 19)
    /// `SQLITE_MISMATCH` (20): A value of the wrong type for a rowid or strict column.
    public static let mismatch = SQLiteResultCode(rawValue: 20)
    /// `SQLITE_MISUSE` (21): The C interface was called out of order; a bug of the caller.
    public static let misuse = SQLiteResultCode(rawValue: 21)
    /// `SQLITE_NOLFS` (22): The platform cannot hold a file this large.
    public static let noLargeFileSupport = SQLiteResultCode(rawValue: 22)
    /// `SQLITE_AUTH` (23): The authorizer refused the statement.
    public static let authorization = SQLiteResultCode(rawValue: 23)
    /// `SQLITE_FORMAT` (24): Not returned by current SQLite.
    public static let format = SQLiteResultCode(rawValue: 24)
    /// `SQLITE_RANGE` (25): A parameter or column index out of range.
    public static let range = SQLiteResultCode(rawValue: 25)
    /// `SQLITE_NOTADB` (26): The file is not a SQLite database.
    public static let notADatabase = SQLiteResultCode(rawValue: 26)
    /// `SQLITE_NOTICE` (27): A notice to the log, not an error.
    public static let notice = SQLiteResultCode(rawValue: 27)
    /// `SQLITE_WARNING` (28): A warning to the log, not an error.
    public static let warning = SQLiteResultCode(rawValue: 28)
    /// `SQLITE_ROW` (100): A step produced a row; not an error.
    public static let row = SQLiteResultCode(rawValue: 100)
    /// `SQLITE_DONE` (101): A step finished the statement; not an error.
    public static let done = SQLiteResultCode(rawValue: 101)

    // MARK: Extended codes the library's callers most often match

    /// `SQLITE_CONSTRAINT_UNIQUE` (2067): A UNIQUE constraint (or index) rejected the change.
    public static let constraintUnique = SQLiteResultCode(rawValue: 2067)
    /// `SQLITE_CONSTRAINT_NOTNULL` (1299): A NOT NULL constraint rejected the change.
    public static let constraintNotNull = SQLiteResultCode(rawValue: 1299)
    /// `SQLITE_CONSTRAINT_PRIMARYKEY` (1555): A PRIMARY KEY constraint rejected the change.
    public static let constraintPrimaryKey = SQLiteResultCode(rawValue: 1555)
    /// `SQLITE_CONSTRAINT_FOREIGNKEY` (787): A FOREIGN KEY constraint rejected the change.
    public static let constraintForeignKey = SQLiteResultCode(rawValue: 787)
    /// `SQLITE_CONSTRAINT_CHECK` (275): A CHECK constraint rejected the change.
    public static let constraintCheck = SQLiteResultCode(rawValue: 275)
    /// `SQLITE_CONSTRAINT_TRIGGER` (1811): A trigger's `RAISE` rejected the change.
    public static let constraintTrigger = SQLiteResultCode(rawValue: 1811)
    /// `SQLITE_BUSY_SNAPSHOT` (517): A read transaction's snapshot is too old to become a write transaction: read again, then write.
    public static let busySnapshot = SQLiteResultCode(rawValue: 517)
    /// `SQLITE_BUSY_RECOVERY` (261): Another connection is recovering the WAL.
    public static let busyRecovery = SQLiteResultCode(rawValue: 261)
    /// `SQLITE_BUSY_TIMEOUT` (773): A lock could not be taken within the busy timeout.
    public static let busyTimeout = SQLiteResultCode(rawValue: 773)
    /// `SQLITE_READONLY_DBMOVED` (1032): The file was moved or deleted while the connection had it open.
    public static let readOnlyDatabaseMoved = SQLiteResultCode(rawValue: 1032)
    /// `SQLITE_IOERR_SHORT_READ` (522): A read returned fewer bytes than asked for (a truncated file).
    public static let ioErrorShortRead = SQLiteResultCode(rawValue: 522)

    /// Every code this version names, primary and extended, by number.
    private static let names: [Int32: String] = [
        0: "SQLITE_OK",
        1: "SQLITE_ERROR",
        2: "SQLITE_INTERNAL",
        3: "SQLITE_PERM",
        4: "SQLITE_ABORT",
        5: "SQLITE_BUSY",
        6: "SQLITE_LOCKED",
        7: "SQLITE_NOMEM",
        8: "SQLITE_READONLY",
        9: "SQLITE_INTERRUPT",
        10: "SQLITE_IOERR",
        11: "SQLITE_CORRUPT",
        12: "SQLITE_NOTFOUND",
        13: "SQLITE_FULL",
        14: "SQLITE_CANTOPEN",
        15: "SQLITE_PROTOCOL",
        16: "SQLITE_EMPTY",
        17: "SQLITE_SCHEMA",
        18: "SQLITE_TOOBIG",
        19: "SQLITE_CONSTRAINT",
        20: "SQLITE_MISMATCH",
        21: "SQLITE_MISUSE",
        22: "SQLITE_NOLFS",
        23: "SQLITE_AUTH",
        24: "SQLITE_FORMAT",
        25: "SQLITE_RANGE",
        26: "SQLITE_NOTADB",
        27: "SQLITE_NOTICE",
        28: "SQLITE_WARNING",
        100: "SQLITE_ROW",
        101: "SQLITE_DONE",
        257: "SQLITE_ERROR_MISSING_COLLSEQ",
        513: "SQLITE_ERROR_RETRY",
        769: "SQLITE_ERROR_SNAPSHOT",
        266: "SQLITE_IOERR_READ",
        522: "SQLITE_IOERR_SHORT_READ",
        778: "SQLITE_IOERR_WRITE",
        1034: "SQLITE_IOERR_FSYNC",
        1290: "SQLITE_IOERR_DIR_FSYNC",
        1546: "SQLITE_IOERR_TRUNCATE",
        1802: "SQLITE_IOERR_FSTAT",
        2058: "SQLITE_IOERR_UNLOCK",
        2314: "SQLITE_IOERR_RDLOCK",
        2570: "SQLITE_IOERR_DELETE",
        2826: "SQLITE_IOERR_BLOCKED",
        3082: "SQLITE_IOERR_NOMEM",
        3338: "SQLITE_IOERR_ACCESS",
        3594: "SQLITE_IOERR_CHECKRESERVEDLOCK",
        3850: "SQLITE_IOERR_LOCK",
        4106: "SQLITE_IOERR_CLOSE",
        4362: "SQLITE_IOERR_DIR_CLOSE",
        4618: "SQLITE_IOERR_SHMOPEN",
        4874: "SQLITE_IOERR_SHMSIZE",
        5130: "SQLITE_IOERR_SHMLOCK",
        5386: "SQLITE_IOERR_SHMMAP",
        5642: "SQLITE_IOERR_SEEK",
        5898: "SQLITE_IOERR_DELETE_NOENT",
        6154: "SQLITE_IOERR_MMAP",
        6410: "SQLITE_IOERR_GETTEMPPATH",
        6666: "SQLITE_IOERR_CONVPATH",
        6922: "SQLITE_IOERR_VNODE",
        7178: "SQLITE_IOERR_AUTH",
        7434: "SQLITE_IOERR_BEGIN_ATOMIC",
        7690: "SQLITE_IOERR_COMMIT_ATOMIC",
        7946: "SQLITE_IOERR_ROLLBACK_ATOMIC",
        8202: "SQLITE_IOERR_DATA",
        8458: "SQLITE_IOERR_CORRUPTFS",
        262: "SQLITE_LOCKED_SHAREDCACHE",
        518: "SQLITE_LOCKED_VTAB",
        261: "SQLITE_BUSY_RECOVERY",
        517: "SQLITE_BUSY_SNAPSHOT",
        773: "SQLITE_BUSY_TIMEOUT",
        270: "SQLITE_CANTOPEN_NOTEMPDIR",
        526: "SQLITE_CANTOPEN_ISDIR",
        782: "SQLITE_CANTOPEN_FULLPATH",
        1038: "SQLITE_CANTOPEN_CONVPATH",
        1294: "SQLITE_CANTOPEN_DIRTYWAL",
        1550: "SQLITE_CANTOPEN_SYMLINK",
        267: "SQLITE_CORRUPT_VTAB",
        523: "SQLITE_CORRUPT_SEQUENCE",
        779: "SQLITE_CORRUPT_INDEX",
        264: "SQLITE_READONLY_RECOVERY",
        520: "SQLITE_READONLY_CANTLOCK",
        776: "SQLITE_READONLY_ROLLBACK",
        1032: "SQLITE_READONLY_DBMOVED",
        1288: "SQLITE_READONLY_CANTINIT",
        1544: "SQLITE_READONLY_DIRECTORY",
        516: "SQLITE_ABORT_ROLLBACK",
        275: "SQLITE_CONSTRAINT_CHECK",
        531: "SQLITE_CONSTRAINT_COMMITHOOK",
        787: "SQLITE_CONSTRAINT_FOREIGNKEY",
        1043: "SQLITE_CONSTRAINT_FUNCTION",
        1299: "SQLITE_CONSTRAINT_NOTNULL",
        1555: "SQLITE_CONSTRAINT_PRIMARYKEY",
        1811: "SQLITE_CONSTRAINT_TRIGGER",
        2067: "SQLITE_CONSTRAINT_UNIQUE",
        2323: "SQLITE_CONSTRAINT_VTAB",
        2579: "SQLITE_CONSTRAINT_ROWID",
        2835: "SQLITE_CONSTRAINT_PINNED",
        3091: "SQLITE_CONSTRAINT_DATATYPE",
        283: "SQLITE_NOTICE_RECOVER_WAL",
        539: "SQLITE_NOTICE_RECOVER_ROLLBACK",
        284: "SQLITE_WARNING_AUTOINDEX",
        279: "SQLITE_AUTH_USER",
        256: "SQLITE_OK_LOAD_PERMANENTLY",
        512: "SQLITE_OK_SYMLINK",
    ]
}
