import Foundation

/// An HTTP answer to an error, before any web framework has it: the status,
/// an RFC 9457 problem type, the sentence for a person, and the headers the
/// answer carries (`ETag` on a 412, `Retry-After` on a 503).
///
/// What this package throws is always one of these; an integration turns it
/// into its framework's error (VaporLiteRecord: `ProblemDetails`, an
/// `AbortError`).
///
/// ```swift
/// do { try conditions.requireIfMatch() }
/// catch let problem as HTTPProblem { print(problem.status) }    // 428
/// ```
public struct HTTPProblem: Error, Hashable, Sendable, CustomStringConvertible {
    /// The status code: 400, 412, 428, …
    public var status: Int
    /// A URI reference naming the kind of problem; `about:blank` when the
    /// status says it all.
    public var type: String
    /// What went wrong, for a person.
    public var detail: String
    /// Header fields of the answer, by name as sent (`ETag`, `Retry-After`).
    public var headers: [String: String]

    /// The type of a problem the status alone describes.
    public static let blank = "about:blank"

    /// A problem with a status, a sentence and, when it has them, a type
    /// and header fields.
    ///
    /// ```swift
    /// let problem = HTTPProblem(status: 404, detail: "no product 7")
    /// ```
    public init(status: Int, type: String = HTTPProblem.blank, detail: String, headers: [String: String] = [:]) {
        self.status = status
        self.type = type
        self.detail = detail
        self.headers = headers
    }

    /// `412: <detail>`.
    public var description: String { "\(status): \(detail)" }
}

/// The body of an RFC 9457 problem, `application/problem+json`: `type`,
/// `title`, `status`, `detail`, and the same sentence as `error.message` (the
/// body LiteRecord's integrations sent before, which clients may read).
///
/// ```swift
/// let data = try ProblemDocument(status: 404, title: "Not Found", type: "about:blank", detail: "no product 7").json()
/// ```
public struct ProblemDocument: Encodable, Hashable, Sendable {
    /// The `error` member: the sentence again, as `message`.
    public struct Message: Encodable, Hashable, Sendable {
        /// The sentence, as `detail`.
        public var message: String
    }

    /// The sentence for a person.
    public var detail: String
    /// `{"message": detail}`.
    public var error: Message
    /// The status code.
    public var status: Int
    /// The status's reason phrase.
    public var title: String
    /// The problem type URI.
    public var type: String

    /// The document of one problem.
    ///
    /// ```swift
    /// let document = ProblemDocument(status: 409, title: "Conflict", type: StoreProblem.uniqueViolation, detail: "taken")
    /// ```
    public init(status: Int, title: String, type: String, detail: String) {
        self.detail = detail
        self.error = Message(message: detail)
        self.status = status
        self.title = title
        self.type = type
    }

    /// The media type of the document.
    public static let mediaType = "application/problem+json"

    /// The document as JSON, keys sorted, slashes not escaped.
    ///
    /// ```swift
    /// let data = try document.json()
    /// ```
    ///
    /// - Throws: the encoder's error (none for the strings a problem holds).
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
