// Entity tags, conditional requests over header strings, the store-error
// table and the history feed are LiteRecordHTTP's, shared with the other
// integrations: a route that imports HummingbirdLiteRecord names `EntityTag`
// without a second import, as before they moved there.
@_exported import LiteRecordHTTP
import HTTPTypes
import Hummingbird

/// Throws what LiteRecordHTTP throws as the `HTTPError` this package's calls
/// have always thrown (a 400 of a malformed header, a 412, a 428): every
/// call of the framework-free layer whose callers may catch `HTTPError` goes
/// through here. A problem with a type of its own stays problem details.
func hummingbirdErrors<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let problem as HTTPProblem {
        guard problem.type == HTTPProblem.blank else { throw ProblemDetails(problem) }
        throw HTTPError(problem)
    }
}

extension HTTPError {
    /// A LiteRecordHTTP problem of type `about:blank` as Hummingbird's
    /// error: its status, headers and sentence.
    init(_ problem: HTTPProblem) {
        self.init(HTTPResponse.Status(problemStatus: problem.status), headers: HTTPFields(problemHeaders: problem.headers),
                  message: problem.detail)
    }
}

extension HTTPFields {
    /// The header fields of a LiteRecordHTTP problem or 304 (`ETag`,
    /// `Retry-After`, `Last-Modified`), in a fixed order.
    init(problemHeaders: [String: String]) {
        self.init()
        for (name, value) in problemHeaders.sorted(by: { $0.key < $1.key }) {
            if let field = HTTPField.Name(name) { self[field] = value }
        }
    }
}

extension HTTPResponse.Status {
    /// The status of a LiteRecordHTTP problem, with its reason phrase (which
    /// problem details send as `title`; `init(code:)` alone has none).
    init(problemStatus code: Int) {
        let known: [HTTPResponse.Status] = [
            .badRequest, .notFound, .methodNotAllowed, .conflict, .gone, .preconditionFailed, .contentTooLarge,
            .unsupportedMediaType, .misdirectedRequest, .preconditionRequired, .tooManyRequests,
            .internalServerError, .serviceUnavailable, .temporaryRedirect, .notModified,
        ]
        if let status = known.first(where: { $0.code == code }) {
            self = status
        } else if code == 507 {
            self.init(code: 507, reasonPhrase: "Insufficient Storage")
        } else if (100...599).contains(code) {
            self.init(code: code)
        } else {
            self = .internalServerError
        }
    }
}
