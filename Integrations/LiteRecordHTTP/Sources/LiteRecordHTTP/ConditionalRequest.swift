public import Foundation
public import LiteRecord

/// A request's preconditions (RFC 9110 §13.1) read from its header strings:
/// `If-Match`, `If-Unmodified-Since`, `If-None-Match` and
/// `If-Modified-Since`, evaluated against a resource's current entity tag
/// (and, when it keeps one, its modification date) in RFC 9110 §13.2.2's
/// order. No web framework: an integration reads the headers of its request
/// into one of these and turns the outcome into its response or error.
///
/// ```swift
/// let conditions = try ConditionalRequest(method: "PUT", path: "/products/7", ifMatch: [#""7.3""#])
/// try conditions.requireIfMatch()                                   // 428 without If-Match
/// _ = try conditions.evaluate(current: EntityTag(id: 7, version: 3))   // nil: go on
/// ```
public struct ConditionalRequest: Hashable, Sendable {
    /// The request's method, upper case: `GET` and `HEAD` are answered 304
    /// where another method is answered 412.
    public let method: String
    /// The request's path, for the sentences of 412 and 428.
    public let path: String
    /// `If-Match`, when sent.
    public let ifMatch: EntityTagCondition?
    /// `If-None-Match`, when sent.
    public let ifNoneMatch: EntityTagCondition?
    /// `If-Unmodified-Since`, when sent as a valid HTTP-date (an invalid one
    /// is ignored, as RFC 9110 §13.1.4 says).
    public let ifUnmodifiedSince: Date?
    /// `If-Modified-Since`, when sent as a valid HTTP-date (an invalid one is
    /// ignored, RFC 9110 §13.1.3).
    public let ifModifiedSince: Date?

    /// Reads the four headers from their field values (every line of each;
    /// empty when the request has none).
    ///
    /// ```swift
    /// let conditions = try ConditionalRequest(method: "GET", path: "/products/7", ifNoneMatch: [#""7.3""#])
    /// ```
    ///
    /// - Throws: an ``HTTPProblem`` with status 400 naming `If-Match` or
    ///   `If-None-Match` when it is neither `*` nor a list of quoted tags.
    public init(method: String, path: String, ifMatch: [String] = [], ifNoneMatch: [String] = [],
                ifUnmodifiedSince: [String] = [], ifModifiedSince: [String] = []) throws {
        self.method = method.uppercased()
        self.path = path
        self.ifMatch = try ifMatch.isEmpty ? nil : EntityTagCondition(fieldValues: ifMatch, field: "If-Match")
        self.ifNoneMatch = try ifNoneMatch.isEmpty ? nil : EntityTagCondition(fieldValues: ifNoneMatch, field: "If-None-Match")
        // A date header is a single value; a repeated one is invalid, and ignored.
        self.ifUnmodifiedSince = ifUnmodifiedSince.count == 1 ? HTTPDate.parse(ifUnmodifiedSince[0]) : nil
        self.ifModifiedSince = ifModifiedSince.count == 1 ? HTTPDate.parse(ifModifiedSince[0]) : nil
    }

    /// Preconditions given as values, for a caller that has read the headers
    /// already or has no request (a test, a job): `method` decides 304
    /// against 412, `path` is named in the sentences.
    ///
    /// ```swift
    /// let conditions = ConditionalRequest(method: "DELETE", path: "/products/7", ifMatch: .tags([EntityTag(id: 7, version: 3)]),
    ///                                     ifNoneMatch: nil, ifUnmodifiedSince: nil, ifModifiedSince: nil)
    /// ```
    public init(method: String, path: String, ifMatch: EntityTagCondition?, ifNoneMatch: EntityTagCondition?,
                ifUnmodifiedSince: Date?, ifModifiedSince: Date?) {
        self.method = method.uppercased()
        self.path = path
        self.ifMatch = ifMatch
        self.ifNoneMatch = ifNoneMatch
        self.ifUnmodifiedSince = ifUnmodifiedSince
        self.ifModifiedSince = ifModifiedSince
    }

    /// Throws 428 Precondition Required (RFC 6585) when the request has no
    /// `If-Match`: a route that changes a resource can insist on it, so that
    /// no client overwrites a change it has not seen.
    ///
    /// ```swift
    /// try conditions.requireIfMatch()      // PUT, PATCH, DELETE
    /// ```
    ///
    /// - Throws: an ``HTTPProblem`` with status 428.
    public func requireIfMatch() throws {
        guard ifMatch == nil else { return }
        throw HTTPProblem(status: 428, detail: "\(method) \(path) needs an If-Match header with the ETag of what it changes")
    }

    /// Evaluates the preconditions against the resource's current state, in
    /// RFC 9110 §13.2.2's order: `If-Match` (strong comparison; else
    /// `If-Unmodified-Since`), then `If-None-Match` (weak comparison; else,
    /// for `GET` and `HEAD`, `If-Modified-Since`). Call it once the request
    /// is otherwise known to succeed (after a 404, say).
    ///
    /// ```swift
    /// if let notModified = try conditions.evaluate(current: tag) { print(notModified.headers) }   // 304
    /// ```
    ///
    /// - Parameters:
    ///   - current: the entity tag of the current representation; `nil` when
    ///     there is none (`If-Match: *` then fails, `If-None-Match: *` passes).
    ///   - lastModified: when the resource last changed; `nil` when it keeps
    ///     no date, and the two date headers are then ignored.
    /// - Returns: a ``NotModified`` for a `GET` or `HEAD` that the client
    ///   already has; `nil` when the method should go on.
    /// - Throws: an ``HTTPProblem`` with status 412 carrying the current
    ///   `ETag` when a condition is false (and for `If-None-Match` on
    ///   another method than `GET` or `HEAD`).
    public func evaluate(current: EntityTag?, lastModified: Date? = nil) throws -> NotModified? {
        // HTTP-dates have whole seconds.
        let modified = lastModified.map { Date(timeIntervalSince1970: $0.timeIntervalSince1970.rounded(.down)) }
        if let ifMatch {
            guard ifMatch.matches(current, weakly: false) else {
                let now = current.map { "its current ETag is \($0)" } ?? "it does not exist"
                throw failed(current, "If-Match names no current representation: \(now)")
            }
        } else if let ifUnmodifiedSince, let modified, current != nil, modified > ifUnmodifiedSince {
            throw failed(current, "it changed after the If-Unmodified-Since date")
        }
        let safe = method == "GET" || method == "HEAD"
        if let ifNoneMatch {
            if ifNoneMatch.matches(current, weakly: true) {
                if safe { return NotModified(current, modified) }
                throw failed(current, "If-None-Match names its current representation")
            }
        } else if safe, let ifModifiedSince, let modified, current != nil, modified <= ifModifiedSince {
            return NotModified(current, modified)
        }
        return nil
    }

    /// The object with row id `rowID`, once the preconditions hold for its
    /// tag (``EntityTag/init(id:version:)``): what a `PUT`, `PATCH` or
    /// `DELETE` does first inside `write {}`, where no other writer can move
    /// the version between this check and the save.
    ///
    /// ```swift
    /// try await stack.write { store in
    ///     let product = try conditions.existing(Product.self, rowID: 7, in: store)   // 404, 412
    ///     store.delete(product)
    /// }
    /// ```
    ///
    /// - Throws: an ``HTTPProblem`` 404 naming the entity and id when there
    ///   is none, 412 carrying the current `ETag` when a precondition is
    ///   false; the store's error.
    public func existing<T: Entity>(_ type: T.Type, rowID: Int64, in context: RecordContext) throws -> T {
        guard let object = try T.find(rowID: rowID, in: context) else {
            throw HTTPProblem(status: 404, detail: "no \(T.entityName) \(rowID)")
        }
        _ = try evaluate(current: EntityTag(id: rowID, version: object.recordVersion ?? 0))
        return object
    }

    func failed(_ current: EntityTag?, _ reason: String) -> HTTPProblem {
        var headers: [String: String] = [:]
        if let current { headers["ETag"] = current.description }
        return HTTPProblem(status: 412, detail: "\(method) \(path) is refused: \(reason)", headers: headers)
    }

    /// The 304 Not Modified a `GET` or `HEAD` is answered with: no body, the
    /// current `ETag` and `Last-Modified` (RFC 9110 §15.4.5).
    ///
    /// ```swift
    /// let headers = NotModified(EntityTag(id: 7, version: 3), nil).headers   // ["ETag": "\"7.3\""]
    /// ```
    public struct NotModified: Hashable, Sendable {
        /// `ETag` and, when known, `Last-Modified`.
        public var headers: [String: String]

        /// The answer for a representation with `tag`, changed at `lastModified`.
        ///
        /// ```swift
        /// let notModified = ConditionalRequest.NotModified(EntityTag(id: 7, version: 3), nil)
        /// ```
        public init(_ tag: EntityTag?, _ lastModified: Date?) {
            headers = [:]
            if let tag { headers["ETag"] = tag.description }
            if let lastModified { headers["Last-Modified"] = HTTPDate.format(lastModified) }
        }
    }
}

/// HTTP-dates (RFC 9110 §5.6.7): IMF-fixdate to send; IMF-fixdate, RFC 850
/// and asctime's format read, as a recipient must.
///
/// ```swift
/// HTTPDate.format(Date(timeIntervalSince1970: 0))    // "Thu, 01 Jan 1970 00:00:00 GMT"
/// ```
public enum HTTPDate {
    /// `date` as an IMF-fixdate.
    ///
    /// ```swift
    /// let text = HTTPDate.format(Date())
    /// ```
    public static func format(_ date: Date) -> String {
        formatter("EEE, dd MMM yyyy HH:mm:ss 'GMT'").string(from: date)
    }

    /// The date of an HTTP-date in any of its three formats; `nil` for other text.
    ///
    /// ```swift
    /// let date = HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT")
    /// ```
    public static func parse(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        for pattern in ["EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy"] {
            if let date = formatter(pattern).date(from: trimmed.replacingOccurrences(of: "  ", with: " ")) { return date }
        }
        return nil
    }

    /// A new formatter each time: `DateFormatter` is not `Sendable`, and
    /// only conditional requests with a date pay for one.
    static func formatter(_ pattern: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = pattern
        return formatter
    }
}
