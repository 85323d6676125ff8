/// The one error LiteRecord throws.
///
/// Every error has a ``kind`` to match on, a ``message`` that says what failed
/// and what to do about it, and — when SQLite reported the failure — SQLite's
/// result codes, message and the SQL that ran (never the bound values, unless
/// ``LiteRecordError/includesValuesInDescriptions`` is turned on).
///
/// ```swift
/// do {
///     try RecordStack.setup(storeNamed: "Notes", entities: [Note.self])
/// } catch let error as LiteRecordError where error.kind == .modelMismatch {
///     print(error.message)   // "Note: attribute 'title' added"
/// }
/// ```
public struct LiteRecordError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. New kinds may be added in later versions,
    /// so a `switch` over kinds needs a `default` case.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        let name: String
        init(_ name: String) { self.name = name }
        public var description: String { name }

        /// A convenience ran before `RecordStack.setup…` or after `cleanUp()`.
        public static let notSetUp = Kind("notSetUp")
        /// `setup…` ran while a default stack was already set up.
        public static let alreadySetUp = Kind("alreadySetUp")
        /// The store was written by a different model.
        public static let modelMismatch = Kind("modelMismatch")
        /// A migration could not be inferred or failed while running.
        public static let migrationFailed = Kind("migrationFailed")
        /// An attribute name is not part of the entity.
        public static let unknownAttribute = Kind("unknownAttribute")
        /// A `Predicate` or `SortDescriptor` that cannot be translated to SQL.
        public static let unsupportedPredicate = Kind("unsupportedPredicate")
        /// `validateForSave()` threw, or a value cannot be stored.
        public static let validationFailed = Kind("validationFailed")
        /// A UNIQUE, NOT NULL or other constraint rejected a save.
        public static let constraintViolation = Kind("constraintViolation")
        /// The file is not a SQLite database, or is damaged.
        public static let corruptStore = Kind("corruptStore")
        /// The store cannot be opened, read or written (missing folder,
        /// permissions, disk full, already closed).
        public static let storeUnavailable = Kind("storeUnavailable")
        /// Any other SQLite failure.
        public static let sqlite = Kind("sqlite")
        /// A stored value cannot be turned back into the attribute's type.
        public static let decodingFailed = Kind("decodingFailed")
        /// The model given to setup is not valid (duplicate or reserved names).
        public static let invalidModel = Kind("invalidModel")
        /// An object was used with a context it does not belong to.
        public static let invalidObject = Kind("invalidObject")
        /// A save, write or delete ran on a stack opened with `readOnly: true`.
        ///
        /// ```swift
        /// let stack = try RecordStack(storeAt: url, entities: [Note.self], readOnly: true)
        /// do { try stack.newContext().save() } catch let error as LiteRecordError where error.kind == .readOnlyStore { … }
        /// ```
        public static let readOnlyStore = Kind("readOnlyStore")
        /// A save met objects changed or deleted in the store since its context
        /// read them, and the context's ``RecordContext/mergePolicy`` is
        /// `.error`. The message names each object and property; nothing was
        /// written and the context keeps its changes.
        ///
        /// ```swift
        /// do { try context.save() } catch let error as LiteRecordError where error.kind == .conflict {
        ///     try context.refresh(person, mergeChanges: true)
        ///     try context.save()
        /// }
        /// ```
        public static let conflict = Kind("conflict")
        /// A history token older than what the store keeps (history before it
        /// was deleted by ``RecordStack/deleteHistory(before:)`` or the
        /// retention), or a token of another store: the transactions since it
        /// cannot all be answered. Read the state again and continue from a
        /// new token (Core Data's expired-token error).
        ///
        /// ```swift
        /// do { changes = try stack.fetchHistory(after: token) }
        /// catch let error as LiteRecordError where error.kind == .historyExpired { resync() }
        /// ```
        public static let historyExpired = Kind("historyExpired")
    }

    /// What kind of failure this is.
    public let kind: Kind
    /// What failed and, where possible, what to do about it.
    public let message: String
    /// SQLite's primary result code, when SQLite reported the failure; by
    /// name in ``sqliteCode``.
    public let resultCode: Int32?
    /// SQLite's extended result code, when SQLite reported the failure; by
    /// name in ``extendedSQLiteCode``.
    public let extendedResultCode: Int32?
    /// SQLite's primary result code by name (``SQLiteResultCode/busy``,
    /// ``SQLiteResultCode/constraint``, …), when SQLite reported the failure.
    ///
    /// ```swift
    /// catch let error as LiteRecordError where error.sqliteCode == .busy { retryLater() }
    /// ```
    public var sqliteCode: SQLiteResultCode? { resultCode.map(SQLiteResultCode.init(rawValue:)) }
    /// SQLite's extended result code by name
    /// (``SQLiteResultCode/constraintUnique``, …), when SQLite reported the
    /// failure.
    public var extendedSQLiteCode: SQLiteResultCode? { extendedResultCode.map(SQLiteResultCode.init(rawValue:)) }
    /// `sqlite3_errmsg` at the time of the failure.
    public let sqliteMessage: String?
    /// The SQL that failed, without bound values.
    public let sql: String?
    /// Bound values, kept only when ``includesValuesInDescriptions`` is on.
    public let arguments: [SQLValue]?

    /// Whether error descriptions may show bound values. Off by default so that
    /// user data does not end up in logs and crash reports.
    ///
    /// The process-wide default: a stack decides for itself with
    /// ``RecordStack/includesValuesInDescriptions``, which follows this switch
    /// while it is `nil`.
    public static var includesValuesInDescriptions: Bool {
        get { ErrorSettings.includesValues.withLock { $0 } }
        set { ErrorSettings.includesValues.withLock { $0 = newValue } }
    }

    /// For the package's other modules (`LiteRecordTesting`): an error of
    /// `kind` with `message`.
    package init(_ kind: Kind, _ message: String) {
        self.init(kind, message, sqlite: nil, arguments: nil)
    }

    init(_ kind: Kind, _ message: String, sqlite: SQLiteError?, arguments: [SQLValue]? = nil) {
        self.kind = kind
        self.message = message
        self.resultCode = sqlite?.code
        self.extendedResultCode = sqlite?.extendedCode
        self.sqliteMessage = sqlite?.message
        self.sql = sqlite?.sql
        self.arguments = ErrorSettings.showsValues ? arguments : nil
    }

    public var description: String {
        var text = "LiteRecordError.\(kind): \(message)"
        if let sqliteMessage, let extendedResultCode {
            text += " (SQLite \(extendedResultCode) \(SQLiteResultCode(rawValue: extendedResultCode).name): \(sqliteMessage))"
        }
        if let sql { text += " [SQL: \(sql)]" }
        if let arguments { text += " [arguments: \(arguments.map(Self.describeValue))]" }
        return text
    }

    /// The same error with another message; the SQLite details stay.
    func withMessage(_ newMessage: String) -> LiteRecordError {
        LiteRecordError(copying: self, message: newMessage)
    }

    private init(copying error: LiteRecordError, message: String) {
        kind = error.kind
        self.message = message
        resultCode = error.resultCode
        extendedResultCode = error.extendedResultCode
        sqliteMessage = error.sqliteMessage
        sql = error.sql
        arguments = error.arguments
    }

    static func describeValue(_ value: SQLValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): "'\(value)'"
        case .blob(let data): "<\(data.count) bytes>"
        }
    }
}

extension LiteRecordError {
    /// Wraps any error thrown while doing `operation` into a `LiteRecordError`
    /// whose kind follows from SQLite's result code.
    ///
    /// With `store` (the store file's path), the message names the file, unless
    /// `operation` already does; a ``LiteRecordError`` about the store itself
    /// (damaged, unavailable, unreadable) gets the path added the same way.
    static func wrap(_ error: any Error, _ operation: String, store: String? = nil, arguments: [SQLValue]? = nil) -> LiteRecordError {
        if let error = error as? LiteRecordError {
            guard Self.storeKinds.contains(error.kind) else { return error }
            let message = naming(store, in: error.message) { "\(error.message) (store: \($0))" }
            return message == error.message ? error : error.withMessage(message)
        }
        let operation = naming(store, in: operation) { "\(operation) in \($0)" }
        guard let sqlite = error as? SQLiteError else {
            return LiteRecordError(.sqlite, "\(operation) failed: \(error)")
        }
        let kind: Kind
        let advice: String
        if sqlite.isConstraintViolation {
            kind = .constraintViolation
            advice = "a constraint rejected the change (\(sqlite.message)); nothing was written"
        } else if sqlite.isCorrupt {
            kind = .corruptStore
            advice = "the file is not a LiteRecord store or is damaged; run `literecord check` on it"
        } else if sqlite.isUnavailable {
            kind = .storeUnavailable
            advice = "the store cannot be read or written: \(sqlite.message)"
        } else {
            kind = .sqlite
            advice = sqlite.message
        }
        return LiteRecordError(kind, "\(operation) failed: \(advice)", sqlite: sqlite, arguments: arguments)
    }
}

extension LiteRecordError {
    /// `text` naming the store's file once: unchanged without a store or when
    /// it names the file already (an inner operation attributed the error
    /// first, or the message was written with the path), `adding(store)`
    /// otherwise. The one place that decides whether an error still needs
    /// its store named, for every attribution helper
    /// (`Store.attributingErrors` and the functions built on it).
    static func naming(_ store: String?, in text: String, adding: (String) -> String) -> String {
        guard let store, !text.contains(store) else { return text }
        return adding(store)
    }

    /// The kinds that describe the store rather than the caller's values: their
    /// messages must name the store's file.
    static let storeKinds: Set<Kind> = [.corruptStore, .storeUnavailable, .sqlite, .decodingFailed, .constraintViolation, .readOnlyStore]
}

/// Runs `body`, turning any error into a ``LiteRecordError`` for `operation`.
func withErrorContext<T>(_ operation: @autoclosure () -> String, _ body: () throws -> T) throws(LiteRecordError) -> T {
    do {
        return try body()
    } catch {
        throw LiteRecordError.wrap(error, operation())
    }
}
