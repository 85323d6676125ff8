import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import HummingbirdLiteRecord
import Logging
import Testing

/// `X-Request-ID` taken (when sane) or made, in the request's logger and on
/// every answer, errors included.
@Suite struct RequestIDMiddlewareTests {
    static let header = HTTPField.Name("X-Request-ID")!

    func withRouter(_ body: @Sendable (any TestClientProtocol, CapturedLog) async throws -> Void) async throws {
        let log = CapturedLog()
        let router = Router()
        router.add(middleware: RequestIDMiddleware<BasicRequestContext>())
        router.add(middleware: StoreErrorMiddleware<BasicRequestContext>())
        // What the route's logger carries, and a line logged with it.
        router.get("/id") { _, context -> String in
            context.logger.notice("serving")
            return "\(context.logger[metadataKey: "hb.request.id"].map { "\($0)" } ?? "none") \(context.id)"
        }
        router.get("/missing") { _, _ -> String in throw HTTPError(.notFound, message: "no such thing") }
        router.get("/problem") { _, _ -> String in throw ProblemDetails(.conflict, detail: "taken") }
        router.add(middleware: UnmatchedRouteMiddleware(router: router))
        try await Application(router: router, logger: log.logger()).test(.router) { client in try await body(client, log) }
    }

    @Test func aSaneIdIsEchoedAndIsTheLoggersId() async throws {
        try await withRouter { client, log in
            let id = "7f3c2a9e-4b1d-4c6a-9e2f-0a1b2c3d4e5f"
            let response = try await client.execute(uri: "/id", method: .get, headers: [Self.header: id])
            #expect(response.status == .ok)
            #expect(response.headers[Self.header] == id)
            #expect(String(buffer: response.body) == "\(id) \(id)")
            // The route's log line carries it.
            let line = log.text.split(separator: "\n").first { $0.contains("serving") }
            #expect(line?.contains("hb.request.id") == true && line?.contains(id) == true, "\(log.text)")
            // Trace ids with `.` and `:`, up to 128 bytes.
            let longest = String(repeating: "a", count: 127) + ":"
            let long = try await client.execute(uri: "/id", method: .get, headers: [Self.header: longest])
            #expect(long.headers[Self.header] == longest)
        }
    }

    @Test func withoutAnIdOrWithAnInsaneOneHummingbirdsIsUsed() async throws {
        try await withRouter { client, _ in
            let plain = try await client.execute(uri: "/id", method: .get)
            let made = try #require(plain.headers[Self.header])
            #expect(!made.isEmpty)
            #expect(String(buffer: plain.body) == "\(made) \(made)")
            for insane in ["a b", "x\u{7f}", "<script>", String(repeating: "a", count: 129), "é"] {
                let response = try await client.execute(uri: "/id", method: .get, headers: [Self.header: insane])
                let id = try #require(response.headers[Self.header])
                #expect(id != insane)
                #expect(String(buffer: response.body) == "\(id) \(id)", "\(insane)")
            }
            // Two ids: neither is taken.
            var two = HTTPFields()
            two.append(HTTPField(name: Self.header, value: "first"))
            two.append(HTTPField(name: Self.header, value: "second"))
            let both = try await client.execute(uri: "/id", method: .get, headers: two)
            #expect(![nil, "first", "second"].contains(both.headers[Self.header]))
            // Each request its own.
            let again = try await client.execute(uri: "/id", method: .get)
            #expect(again.headers[Self.header] != made)
        }
    }

    @Test func errorAnswersCarryTheIdToo() async throws {
        try await withRouter { client, _ in
            for (uri, status) in [("/missing", HTTPResponse.Status.notFound), ("/problem", .conflict), ("/nowhere", .notFound)] {
                let response = try await client.execute(uri: uri, method: .get, headers: [Self.header: "err-1"])
                #expect(response.status == status, "\(uri)")
                #expect(response.headers[Self.header] == "err-1", "\(uri)")
                #expect(response.headers[.contentType] == "application/problem+json", "\(uri)")
            }
            let wrongMethod = try await client.execute(uri: "/id", method: .delete, headers: [Self.header: "err-2"])
            #expect(wrongMethod.status == .methodNotAllowed)
            #expect(wrongMethod.headers[Self.header] == "err-2")
        }
    }
}
