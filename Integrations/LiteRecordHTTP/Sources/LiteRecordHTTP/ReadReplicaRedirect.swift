public import Foundation

/// What a read replica (`RecordStack(replicaAt:…)`) answers a write, before
/// anything of it is read: **307 Temporary Redirect** with `Location` naming
/// the same path and query on the primary, so that a client following it
/// repeats the same method and body there (a 307 keeps both, RFC 9110
/// §15.4.8; temporary, because which server is the primary can change), or,
/// when the primary is not known, **421 Misdirected Request** (RFC 9110
/// §15.5.20): this server cannot answer the write, and trying it again here
/// will not help. Never 503, which invites retries here. Each integration's
/// `ReadReplicaMiddleware` answers with it.
///
/// ```swift
/// let replica = ReadReplicaRedirect(primary: URL(string: "http://10.0.0.5:8080"))
/// if ReadReplicaRedirect.isWrite(method: "POST") {
///     let problem = replica.refusal(method: "POST", path: "/products", query: nil)   // 307, Location: http://10.0.0.5:8080/products
/// }
/// ```
public struct ReadReplicaRedirect: Sendable, Hashable {
    /// The primary's base URL without a trailing `/`, or `nil`.
    public let primary: String?

    /// The answers for a replica whose primary is `primary` (its base URL,
    /// `http://10.0.0.5:8080`, or with a path prefix), `nil` when not known
    /// (421 then).
    ///
    /// ```swift
    /// let replica = ReadReplicaRedirect(primary: nil)     // every write: 421
    /// ```
    public init(primary: URL?) {
        self.primary = primary.map { url in
            var text = url.absoluteString
            while text.hasSuffix("/") { text.removeLast() }
            return text
        }
    }

    /// Whether a request with `method` writes: anything but `GET`, `HEAD`
    /// and `OPTIONS`, which a replica answers itself.
    ///
    /// ```swift
    /// ReadReplicaRedirect.isWrite(method: "HEAD")     // false
    /// ```
    public static func isWrite(method: String) -> Bool {
        !["GET", "HEAD", "OPTIONS"].contains(method.uppercased())
    }

    /// The answer to a write of `method` on `path` (percent-encoded, as
    /// sent) with `query` (without its `?`): a 307 problem with `Location`
    /// on the primary, or a 421 one.
    ///
    /// ```swift
    /// let problem = replica.refusal(method: "DELETE", path: "/products/7", query: "dry=1")
    /// ```
    public func refusal(method: String, path: String, query: String?) -> HTTPProblem {
        guard let primary else {
            return HTTPProblem(status: 421, detail: "this server is a read replica and takes no writes; send \(method) to the primary")
        }
        let location = primary + path + (query.map { "?\($0)" } ?? "")
        return HTTPProblem(status: 307, detail: "this server is a read replica and takes no writes; \(method) \(location) on the primary",
                           headers: ["Location": location])
    }
}
