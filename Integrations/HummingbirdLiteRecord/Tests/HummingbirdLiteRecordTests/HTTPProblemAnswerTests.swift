import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdLiteRecord
import Testing

/// A LiteRecordHTTP `HTTPProblem` a route throws (the integrations' shared
/// layer, called directly) is answered by StoreErrorMiddleware as problem
/// details with its own status, type, sentence and headers, as VaporLiteRecord
/// answers it, not as a 500.
@Suite struct HTTPProblemAnswerTests {
    struct Body: Decodable {
        var type: String
        var title: String
        var status: Int
        var detail: String
    }

    @Test func aProblemKeepsItsStatusTypeAndHeaders() async throws {
        let router = Router()
        router.add(middleware: StoreErrorMiddleware())
        router.get("/busy") { _, _ -> Response in
            throw HTTPProblem(status: 503, type: StoreProblem.storeUnavailable, detail: "try later", headers: ["Retry-After": "2"])
        }
        router.get("/full") { _, _ -> Response in
            throw HTTPProblem(status: 507, type: StoreProblem.diskFull, detail: "full")
        }
        router.get("/tag") { request, _ -> Response in
            // The shared parsing called directly: its 400.
            _ = try EntityTagCondition(fieldValues: request.headers[values: .ifMatch], field: "If-Match")
            return Response(status: .ok)
        }
        try await Application(router: router).test(.router) { client in
            let busy = try await client.execute(uri: "/busy", method: .get)
            #expect(busy.status == .serviceUnavailable)
            #expect(busy.headers[.retryAfter] == "2")
            #expect(busy.headers[.contentType] == "application/problem+json")
            let body = try JSONDecoder().decode(Body.self, from: Data(busy.body.readableBytesView))
            #expect(body.type == StoreProblem.storeUnavailable)
            #expect(body.title == "Service Unavailable")
            #expect(body.detail == "try later")
            let full = try await client.execute(uri: "/full", method: .get)
            #expect(full.status.code == 507)
            #expect(try JSONDecoder().decode(Body.self, from: Data(full.body.readableBytesView)).title == "Insufficient Storage")
            let malformed = try await client.execute(uri: "/tag", method: .get, headers: [.ifMatch: "2"])
            #expect(malformed.status == .badRequest)
            #expect(try JSONDecoder().decode(Body.self, from: Data(malformed.body.readableBytesView)).detail.contains("If-Match"))
        }
    }
}
