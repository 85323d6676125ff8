public import Hummingbird

extension Request {
    /// Refuses a body that is not JSON: `Content-Type` must be
    /// `application/json` or an `application/…+json` type, with any
    /// parameters. Hummingbird's JSON decoder reads any body as JSON, so a
    /// browser's cross-site `text/plain` or form POST, which needs no CORS
    /// preflight, would otherwise reach the store.
    ///
    /// ```swift
    /// try request.requireJSONContent()
    /// let input = try await request.decode(as: TodoInput.self, context: context)
    /// ```
    ///
    /// - Throws: `HTTPError(.unsupportedMediaType)` (415) naming what was sent.
    public func requireJSONContent() throws {
        let value = headers[.contentType] ?? ""
        let mediaType = value.split(separator: ";", maxSplits: 1).first.map { String($0).lowercased() } ?? ""
        let trimmed = mediaType.filter { $0 != " " && $0 != "\t" }
        guard trimmed == "application/json" || (trimmed.hasPrefix("application/") && trimmed.hasSuffix("+json")) else {
            let sent = value.isEmpty ? "no Content-Type" : "Content-Type '\(value)'"
            throw HTTPError(.unsupportedMediaType, message: "the body must be application/json, not \(sent)")
        }
    }
}
