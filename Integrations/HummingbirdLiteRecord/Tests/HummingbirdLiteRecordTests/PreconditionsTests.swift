import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdLiteRecord
import Testing

/// `Request.evaluatePreconditions`: the four conditional headers evaluated in
/// RFC 9110 §13.2.2's order against a resource's tag and date.
@Suite struct PreconditionsTests {
    /// `/doc` has tag "1.2", last modified at 2026-01-01 00:00:00 UTC; `/none`
    /// has no current representation. Writes need If-Match.
    static let modified = Date(timeIntervalSince1970: 1_767_225_600)

    func withRouter(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let router = Router(options: [.autoGenerateHeadEndpoints])
        router.add(middleware: StoreErrorMiddleware())
        let tag = EntityTag(id: 1, version: 2)
        router.get("/doc") { request, _ -> Response in
            if let notModified = try request.evaluatePreconditions(current: tag, lastModified: Self.modified) { return notModified }
            return Response(status: .ok, headers: [.eTag: tag.description], body: .init(byteBuffer: ByteBuffer(string: "doc")))
        }
        router.put("/doc") { request, _ -> HTTPResponse.Status in
            _ = try request.evaluatePreconditions(current: tag, lastModified: Self.modified, requiringIfMatch: true)
            return .noContent
        }
        router.put("/none") { request, _ -> HTTPResponse.Status in
            _ = try request.evaluatePreconditions(current: nil)
            return .created
        }
        router.add(middleware: UnmatchedRouteMiddleware(router: router, options: [.autoGenerateHeadEndpoints]))
        try await Application(router: router).test(.router, body)
    }

    func status(_ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ path: String = "/doc",
                _ headers: HTTPFields) async throws -> HTTPResponse.Status {
        try await client.execute(uri: path, method: method, headers: headers).status
    }

    @Test func theOrderOfRFC9110() async throws {
        let later = "Fri, 02 Jan 2026 00:00:00 GMT", earlier = "Wed, 31 Dec 2025 00:00:00 GMT"
        try await withRouter { client in
            let cases: [(HTTPRequest.Method, HTTPFields, HTTPResponse.Status)] = [
                (.get, [:], .ok),
                (.get, [.ifMatch: #""1.2""#], .ok),
                (.get, [.ifMatch: #""1.1""#], .preconditionFailed),
                // If-Match before If-None-Match: 412, not 304.
                (.get, [.ifMatch: #""1.1""#, .ifNoneMatch: #""1.2""#], .preconditionFailed),
                (.get, [.ifNoneMatch: #"W/"1.2""#], .notModified),
                (.head, [.ifNoneMatch: "*"], .notModified),
                (.get, [.ifNoneMatch: #""1.1""#], .ok),
                // Dates: If-Unmodified-Since only without If-Match, If-Modified-Since only without If-None-Match.
                (.get, [.ifUnmodifiedSince: earlier], .preconditionFailed),
                (.get, [.ifMatch: #""1.2""#, .ifUnmodifiedSince: earlier], .ok),
                (.get, [.ifUnmodifiedSince: "not a date"], .ok),
                (.get, [.ifModifiedSince: later], .notModified),
                (.get, [.ifModifiedSince: "Thu, 01 Jan 2026 00:00:00 GMT"], .notModified),
                (.get, [.ifModifiedSince: earlier], .ok),
                (.get, [.ifModifiedSince: "Friday, 02-Jan-26 00:00:00 GMT"], .notModified),
                (.get, [.ifModifiedSince: "Fri Jan  2 00:00:00 2026"], .notModified),
                (.get, [.ifNoneMatch: #""1.1""#, .ifModifiedSince: later], .ok),
                // Writes: 428 without If-Match; If-None-Match naming the tag is 412, not 304.
                (.put, [:], .preconditionRequired),
                (.put, [.ifMatch: #""1.2""#], .noContent),
                (.put, [.ifMatch: #"W/"1.2""#], .preconditionFailed),
                (.put, [.ifMatch: #""1.2""#, .ifNoneMatch: #""1.2""#], .preconditionFailed),
                (.put, [.ifMatch: "*", .ifNoneMatch: "*"], .preconditionFailed),
                (.put, [.ifMatch: "2"], .badRequest),
            ]
            for (method, headers, expected) in cases {
                let got = try await status(client, method, "/doc", headers)
                #expect(got == expected, "\(method) \(headers)")
            }
            // No current representation: If-None-Match: * passes, If-Match: * fails.
            let created = try await status(client, .put, "/none", [.ifNoneMatch: "*"])
            #expect(created == .created)
            let failed = try await status(client, .put, "/none", [.ifMatch: "*"])
            #expect(failed == .preconditionFailed)
        }
    }

    @Test func a304CarriesTheValidatorsAndNoBody() async throws {
        try await withRouter { client in
            let response = try await client.execute(uri: "/doc", method: .get, headers: [.ifNoneMatch: #""1.2""#])
            #expect(response.status == .notModified)
            #expect(response.headers[.eTag] == #""1.2""#)
            #expect(response.headers[.lastModified] == "Thu, 01 Jan 2026 00:00:00 GMT")
            #expect(response.body.readableBytes == 0)
            let failed = try await client.execute(uri: "/doc", method: .put, headers: [.ifMatch: #""0.0""#])
            #expect(failed.status == .preconditionFailed)
            #expect(failed.headers[.eTag] == #""1.2""#)
        }
    }
}
