import BookmarksCore
import CoreMetrics
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LiteRecord
import Metrics
import Testing

/// What a production service carries beside its routes: request ids,
/// `/metrics` fed by Hummingbird's MetricsMiddleware, bearer tokens on
/// writes.
@Suite struct ServiceIdiomsTests {
    /// The process's metrics backend, bootstrapped once.
    static let metrics: PrometheusMetrics = {
        let metrics = PrometheusMetrics()
        MetricsSystem.bootstrap(metrics)
        return metrics
    }()

    @Test func everyAnswerCarriesARequestIdAndEchoesASaneOne() async throws {
        try await withService { client, _ in
            let plain = try await client.send(uri: "/health", method: .get)
            #expect(plain.headers[HTTPField.Name("X-Request-ID")!]?.isEmpty == false)
            let sent = try await client.send(uri: "/bookmarks/999", method: .get, headers: [HTTPField.Name("X-Request-ID")!: "trace-42"])
            #expect(sent.status == .notFound)
            #expect(sent.headers[HTTPField.Name("X-Request-ID")!] == "trace-42")
            let insane = try await client.send(uri: "/health", method: .get, headers: [HTTPField.Name("X-Request-ID")!: "a b\u{7f}"])
            #expect(insane.headers[HTTPField.Name("X-Request-ID")!] != "a b\u{7f}")
        }
    }

    @Test func metricsRouteCountsRequestsAndTheirDurations() async throws {
        var options = BookmarksOptions()
        options.metrics = Self.metrics
        try await withService(options: options) { client, _ in
            try await post(client, url: "https://metrics.example")
            _ = try await client.send(uri: "/bookmarks", method: .get)
            let response = try await client.send(uri: "/metrics", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("text/plain") == true)
            let body = text(response)
            #expect(body.contains("# TYPE hb_requests counter"), "\(body)")
            #expect(body.contains("# TYPE http_server_request_duration histogram"), "\(body)")
            #expect(body.contains("http_server_request_duration_bucket{"), "\(body)")
            #expect(body.contains("le=\"+Inf\""))
        }
    }

    @Test func prometheusTextIsWellFormed() {
        let metrics = PrometheusMetrics()
        metrics.makeCounter(label: "requests.total", dimensions: [("method", "GET"), ("path", "/a\"b")]).increment(by: 3)
        metrics.makeTimer(label: "latency", dimensions: []).recordNanoseconds(2_000_000)
        metrics.makeRecorder(label: "open", dimensions: [], aggregate: false).record(Int64(7))
        let text = metrics.render()
        #expect(text.contains("# TYPE requests_total counter\nrequests_total{method=\"GET\",path=\"/a\\\"b\"} 3\n"), "\(text)")
        #expect(text.contains("latency_bucket{le=\"0.001\"} 0\n"))
        #expect(text.contains("latency_bucket{le=\"0.0025\"} 1\n"))
        #expect(text.contains("latency_count 1\n"))
        #expect(text.contains("open 7\n"))
    }

    @Test func writesNeedABearerTokenWhenTokensAreSet() async throws {
        var options = BookmarksOptions()
        options.tokens = ["first-token", "second-token"]
        try await withService(options: options) { client, store in
            let body = json(#"{"url": "https://a.example", "title": "T", "folder": "F"}"#)
            let none = try await client.send(uri: "/bookmarks", method: .post, body: body)
            #expect(none.status == .unauthorized)
            #expect(none.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            let wrong = try await client.send(uri: "/bookmarks", method: .post, headers: [.authorization: "Bearer first-tokeN"], body: body)
            #expect(wrong.status == .unauthorized)
            let prefix = try await client.send(uri: "/bookmarks", method: .post, headers: [.authorization: "Bearer first"], body: body)
            #expect(prefix.status == .unauthorized)
            #expect(try await store.counts().bookmarks == 0)
            let right = try await client.send(uri: "/bookmarks", method: .post, headers: [.authorization: "Bearer second-token"], body: body)
            #expect(right.status == .created)
            // Reads stay open.
            #expect(try await client.send(uri: "/bookmarks", method: .get).status == .ok)
            let delete = try await client.send(uri: "/bookmarks/1", method: .delete)
            #expect(delete.status == .unauthorized)
        }
    }

    @Test func tokensComeFromAFileOrAVariable() throws {
        typealias Auth = BearerTokenMiddleware<BookmarksRequestContext>
        #expect(Auth.tokens(in: "a, b\n# comment\n\n c \r\n") == ["a", "b", "c"])
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)")
        try "# service tokens\nalpha\nbeta\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try Auth.tokens(fromFile: file.path) == ["alpha", "beta"])
    }
}
