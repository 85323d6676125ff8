import HTTPTypes
public import Hummingbird
public import LiteRecordHTTP

// `EntityTag` and `EntityTagCondition` are LiteRecordHTTP's (re-exported):
// the same tags and the same parsing as every LiteRecord integration. Here,
// what Hummingbird adds: a 412 as `HTTPError`, and the request's headers.

extension EntityTagCondition {
    /// Throws the 412 a state-changing request gets when the condition does
    /// not name `current` strongly (`nil`: the resource does not exist),
    /// carrying the current `ETag` so the client can read again.
    ///
    /// ```swift
    /// try condition.requireMatch(EntityTag(id: 7, version: 3))
    /// ```
    ///
    /// - Throws: `HTTPError(.preconditionFailed)` with `message`, or a
    ///   sentence naming the current ETag.
    public func requireMatch(_ current: EntityTag?, message: String? = nil) throws {
        guard !matches(current, weakly: false) else { return }
        var headers = HTTPFields()
        if let current { headers[.eTag] = current.description }
        let now = current.map { "its current ETag is \($0)" } ?? "it does not exist"
        throw HTTPError(.preconditionFailed, headers: headers, message: message ?? "If-Match names no current representation: \(now)")
    }
}

extension Request {
    /// The request's `If-Match` condition, `nil` when it has none.
    ///
    /// ```swift
    /// let condition = try request.ifMatch()
    /// ```
    ///
    /// - Throws: `HTTPError(.badRequest)` for a malformed header.
    public func ifMatch() throws -> EntityTagCondition? {
        try condition(.ifMatch, named: "If-Match")
    }

    /// The request's `If-None-Match` condition, `nil` when it has none.
    ///
    /// ```swift
    /// let condition = try request.ifNoneMatch()
    /// ```
    ///
    /// - Throws: `HTTPError(.badRequest)` for a malformed header.
    public func ifNoneMatch() throws -> EntityTagCondition? {
        try condition(.ifNoneMatch, named: "If-None-Match")
    }

    func condition(_ field: HTTPField.Name, named name: String) throws -> EntityTagCondition? {
        let values = headers[values: field]
        return values.isEmpty ? nil : try hummingbirdErrors { try EntityTagCondition(fieldValues: values, field: name) }
    }

    /// Checks `If-Match` against the resource's current tag (`nil`: the
    /// resource does not exist), as a state-changing method must (RFC 9110
    /// §13.1.1): strong comparison, `*` matching any existing resource. No
    /// header passes unless `required`.
    ///
    /// ```swift
    /// try request.checkIfMatch(current: EntityTag(id: id, version: version), required: true)
    /// ```
    ///
    /// - Throws: `HTTPError(.preconditionRequired)` (428) when `required` and
    ///   the header is absent; `.preconditionFailed` (412) carrying the
    ///   current `ETag` when no tag matches; `.badRequest` for a malformed
    ///   header.
    public func checkIfMatch(current: EntityTag?, required: Bool = false) throws {
        guard let condition = try ifMatch() else {
            if required {
                // The 428 and its sentence, as `Preconditions` has them.
                try hummingbirdErrors { try ConditionalRequest(method: method.rawValue, path: uri.path).requireIfMatch() }
            }
            return
        }
        try condition.requireMatch(current)
    }

    /// Whether a `GET` or `HEAD` should answer 304 Not Modified: the
    /// request's `If-None-Match` names `current` (weak comparison) or is `*`.
    ///
    /// ```swift
    /// if try request.isNotModified(current: tag) { return Response.notModified(tag) }
    /// ```
    ///
    /// - Throws: `HTTPError(.badRequest)` for a malformed header.
    public func isNotModified(current: EntityTag) throws -> Bool {
        try ifNoneMatch()?.matches(current, weakly: true) ?? false
    }
}

extension Response {
    /// A 304 Not Modified carrying `tag` as its `ETag`, and no body.
    ///
    /// ```swift
    /// return Response.notModified(EntityTag(id: 7, version: 3))
    /// ```
    public static func notModified(_ tag: EntityTag) -> Response {
        Response(status: .notModified, headers: [.eTag: tag.description])
    }
}
