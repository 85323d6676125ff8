import Foundation
import LiteRecord
import Testing
import Vapor
import VaporLiteRecord
import VaporTesting

/// `req.evaluatePreconditions(current:lastModified:requiringIfMatch:)`, the
/// one call for conditional requests, on a route: headers read from a Vapor
/// request, answers in Vapor's types (the evaluation's order is
/// LiteRecordHTTP's, tested there).
@Suite(.timeLimit(.minutes(1))) struct PreconditionsTests {
    static let tag = EntityTag(id: 7, version: 3)
    static let changed = Date(timeIntervalSince1970: 1_700_000_000)

    func withRoute(_ body: (any TestingApplicationTester) async throws -> Void) async throws {
        try await withApp(configure: { app in
            app.middleware.use(StoreErrorMiddleware())
            app.on(.GET, "thing") { req async throws -> Response in
                if let notModified = try req.evaluatePreconditions(current: Self.tag, lastModified: Self.changed) { return notModified }
                return Response(status: .ok, body: "thing")
            }
            app.on(.PATCH, "thing") { req async throws -> HTTPStatus in
                _ = try req.evaluatePreconditions(current: Self.tag, requiringIfMatch: true)
                return .noContent
            }
        }) { app in
            try await body(try app.testing())
        }
    }

    @Test func aMalformedTagListIs400NamingTheHeader() async throws {
        try await withRoute { client in
            let answer = try await client.send(.GET, "/thing", headers: ["If-None-Match": "7.3"])
            #expect(answer.status == .badRequest)
            #expect(try Problem(answer).detail.contains("If-None-Match"))
        }
    }

    @Test func datesAreReadWhenNoTagConditionIsSent() async throws {
        try await withRoute { client in
            let after = HTTPDate.format(Self.changed.addingTimeInterval(60))
            let before = HTTPDate.format(Self.changed.addingTimeInterval(-60))
            let notModified = try await client.send(.GET, "/thing", headers: ["If-Modified-Since": after])
            #expect(notModified.status == .notModified)
            #expect(notModified.headers.first(name: .lastModified) == HTTPDate.format(Self.changed))
            #expect(try await client.send(.GET, "/thing", headers: ["If-Modified-Since": before]).status == .ok)
            #expect(try await client.send(.GET, "/thing", headers: ["If-Unmodified-Since": before]).status == .preconditionFailed)
            // A tag condition wins over a date (RFC 9110 §13.2.2).
            #expect(try await client.send(.GET, "/thing", headers: ["If-None-Match": #""other""#, "If-Modified-Since": after]).status
                == .ok)
        }
    }

    @Test func aWriteThatRequiresIfMatch() async throws {
        try await withRoute { client in
            let missing = try await client.send(.PATCH, "/thing")
            #expect(missing.status == .preconditionRequired)
            #expect(try Problem(missing).detail == "PATCH /thing needs an If-Match header with the ETag of what it changes")
            let stale = try await client.send(.PATCH, "/thing", headers: ["If-Match": #""7.2""#])
            #expect(stale.status == .preconditionFailed)
            #expect(stale.eTag == #""7.3""#)
            #expect(try await client.send(.PATCH, "/thing", headers: ["If-Match": #"W/"7.3""#]).status == .preconditionFailed)
            #expect(try await client.send(.PATCH, "/thing", headers: ["If-Match": #""7.1", "7.3""#]).status == .noContent)
        }
    }
}
