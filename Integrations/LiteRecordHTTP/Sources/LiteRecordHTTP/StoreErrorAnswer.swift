public import LiteRecord
import Foundation

/// How a service answers a store error: the status it means, a problem type
/// of ``StoreProblem``, and a sentence of its own — the library's message,
/// which can name the file and the SQL, is for the log only.
///
/// | error | status |
/// | --- | --- |
/// | a unique (or other) constraint | 409, naming the attributes |
/// | an optimistic-locking conflict | 412 |
/// | a history token older than the store keeps | 410 |
/// | busy, locked, read-only, closed | 503 with `Retry-After: 1` |
/// | disk full | 507 |
/// | anything else | 500 |
///
/// ```swift
/// catch let error as LiteRecordError {
///     let answer = StoreErrorAnswer(error)
///     print(answer.problem.status, answer.problem.detail)
/// }
/// ```
public struct StoreErrorAnswer: Sendable {
    /// How serious the error is for the service's log.
    public enum Severity: Sendable {
        /// The client's doing (409, 410, 412): worth a notice.
        case client
        /// The store cannot answer now (503, 507): a warning.
        case unavailable
        /// A fault of the service's (500): an error, with the library's
        /// message, which the answer quotes by the request id only.
        case fault
    }

    /// The answer; for a 500, its detail is a generic sentence
    /// (``genericDetail(requestID:)`` names the request).
    public let problem: HTTPProblem
    /// How the service logs it.
    public let severity: Severity

    /// The answer to `error`.
    ///
    /// ```swift
    /// let answer = StoreErrorAnswer(error)
    /// ```
    public init(_ error: LiteRecordError) {
        let status = error.httpStatusCode
        switch status {
        case 409:
            let what: String
            if let columns = error.violatedColumns {
                what = columns.count == 1 ? "the value of \(columns[0]) must be unique, and it is taken"
                    : "the values of \(columns.joined(separator: ", ")) must be unique together, and they are taken"
            } else {
                what = "a value that must be unique is taken"
            }
            problem = HTTPProblem(status: 409, type: StoreProblem.uniqueViolation, detail: "the change conflicts with a stored record: \(what)")
            severity = .client
        case 412:
            problem = HTTPProblem(status: 412, type: StoreProblem.conflict, detail: "the record changed since it was read; read it again")
            severity = .client
        case 410:
            problem = HTTPProblem(status: 410, type: StoreProblem.historyExpired,
                                  detail: "the history token is older than what the store keeps, or from another store; read the records again and continue from a new token")
            severity = .client
        case 503:
            problem = HTTPProblem(status: 503, type: StoreProblem.storeUnavailable, detail: "the store is busy or unavailable; try again",
                                  headers: ["Retry-After": "1"])
            severity = .unavailable
        case 507:
            problem = HTTPProblem(status: 507, type: StoreProblem.diskFull, detail: "the disk is full; nothing was written")
            severity = .unavailable
        default:
            problem = HTTPProblem(status: 500, detail: Self.genericDetail(requestID: nil))
            severity = .fault
        }
    }

    /// The sentence of a 500: nothing of the error itself, which the log
    /// has, and the request id when there is one, so that a client's report
    /// finds the log line.
    ///
    /// ```swift
    /// StoreErrorAnswer.genericDetail(requestID: "b3f1")   // "… (request id b3f1)"
    /// ```
    public static func genericDetail(requestID: String?) -> String {
        "the server could not answer this request" + (requestID.map { " (request id \($0))" } ?? "")
    }
}

/// The problem types given to the store's errors (tag URIs, RFC 4151:
/// names, not addresses to fetch).
///
/// ```swift
/// if problem.type == StoreProblem.uniqueViolation { print("taken") }
/// ```
public enum StoreProblem {
    /// 409: a unique attribute's value is taken.
    public static let uniqueViolation = "tag:literecord,2026:unique-violation"
    /// 412: the record changed since it was read (optimistic locking).
    public static let conflict = "tag:literecord,2026:conflict"
    /// 410: a history token the store no longer answers.
    public static let historyExpired = "tag:literecord,2026:history-expired"
    /// 503: the store is busy, read-only or closed.
    public static let storeUnavailable = "tag:literecord,2026:store-unavailable"
    /// 507: the disk is full.
    public static let diskFull = "tag:literecord,2026:disk-full"
}

extension LiteRecordError {
    /// The HTTP status code a service answers for this store error: 409 for
    /// a unique or other constraint, 412 for an optimistic-locking conflict,
    /// 410 for a history token older than the store keeps, 503 when the store
    /// is busy, read-only or unavailable, 507 when the disk is full, and 500
    /// for everything else.
    ///
    /// ```swift
    /// catch let error as LiteRecordError { print(error.httpStatusCode) }    // 409
    /// ```
    public var httpStatusCode: Int {
        let primary = (extendedResultCode ?? resultCode ?? 0) & 0xFF
        switch primary {
        case 13: return 507  // SQLITE_FULL
        case 5, 6: return 503  // SQLITE_BUSY, SQLITE_LOCKED
        default: break
        }
        switch kind {
        case .constraintViolation: return 409
        case .conflict: return 412
        case .historyExpired: return 410
        case .storeUnavailable, .readOnlyStore: return 503
        default: return 500
        }
    }

    /// The `Entity.attribute` names of the unique constraint a
    /// `.constraintViolation` broke, as SQLite reports them
    /// (`UNIQUE constraint failed: Product.sku`): `["Product.sku"]`, several
    /// for a constraint over several attributes; `nil` for another error or
    /// constraint. Names of the model only, never a stored value.
    ///
    /// ```swift
    /// catch let error as LiteRecordError where error.kind == .constraintViolation {
    ///     print(error.violatedColumns ?? [])      // ["Product.sku"]
    /// }
    /// ```
    public var violatedColumns: [String]? {
        let prefix = "UNIQUE constraint failed: "
        guard kind == .constraintViolation, let sqliteMessage, sqliteMessage.hasPrefix(prefix) else { return nil }
        let columns = sqliteMessage.dropFirst(prefix.count).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return columns.isEmpty ? nil : columns
    }
}
