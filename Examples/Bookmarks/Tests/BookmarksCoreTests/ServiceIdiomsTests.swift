import BookmarksCore
import CoreMetrics
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LiteRecord
import HummingbirdAuth
import Metrics
import Prometheus
import Testing

/// What a production service carries beside its routes: request ids,
/// `/metrics` fed by Hummingbird's MetricsMiddleware through swift-prometheus,
/// bearer tokens on writes through hummingbird-auth.
@Suite struct ServiceIdiomsTests {
    /// The process's metrics backend, bootstrapped once: swift-prometheus's
    /// factory over one registry.
    static let metrics: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
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

    /// /metrics prints the registry swift-metrics reports to, in Prometheus's
    /// text format: what the service records itself is there beside
    /// Hummingbird's metrics, durations in seconds.
    @Test func metricsRoutePrintsTheRegistrysPrometheusText() async throws {
        var options = BookmarksOptions()
        options.metrics = Self.metrics
        let marks = MetricNameDescriptor(namespace: "bookmarks", subsystem: "test", metricName: "marks", unitName: "total",
                                         helpText: "Marks this test sets.")
        Self.metrics.makeCounter(descriptor: marks, labels: [("case", "a\"b")]).increment(by: Int64(3))
        try await withService(options: options) { client, _ in
            _ = try await client.send(uri: "/health", method: .get)
            let body = text(try await client.send(uri: "/metrics", method: .get))
            #expect(body.contains("""
                # HELP bookmarks_test_marks_total Marks this test sets.
                # TYPE bookmarks_test_marks_total counter
                bookmarks_test_marks_total{case="a\\"b"} 3

                """), "\(body)")
            // swift-prometheus's buckets, in seconds: 5 ms is 0.005.
            #expect(body.contains("le=\"0.005\""), "\(body)")
            #expect(body.contains("# TYPE http_server_active_requests gauge"), "\(body)")
        }
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
        #expect(BearerTokens.parse("a, b\n# comment\n\n c \r\n") == ["a", "b", "c"])
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)")
        try "# service tokens\nalpha\nbeta\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try BearerTokens.parse(fileAt: file.path) == ["alpha", "beta"])
    }

    @Test func onlyAWholeTokenIsAccepted() {
        let tokens = BearerTokens(["first-token", "", "second-token"])
        #expect(tokens.accepts("first-token") && tokens.accepts("second-token"))
        for guess in ["", "first", "first-tokeN", "first-token ", "first-tokenx", "second-token\u{0}"] {
            #expect(!tokens.accepts(guess), "\(guess)")
        }
        #expect(BearerTokens([""]).isEmpty)
    }

    /// hummingbird-auth's identity: a route behind the service's
    /// authenticator knows which kind of token the client sent, a write
    /// token or a feeds' read token.
    @Test func theTokenIdentifiesTheClientInTheContext() async throws {
        let router = Router(context: BookmarksRequestContext.self)
        router.add(middleware: BearerTokenAuthenticator(tokens: BearerTokens(["write-token"]), client: .writer))
        router.add(middleware: RequireBearerToken())
        router.post("/who") { _, context in context.identity.map { "\($0)" } ?? "none" }
        let feeds = router.group("/feed")
        feeds.add(middleware: BearerTokenAuthenticator(tokens: BearerTokens(["read-token", "write-token"]), client: .reader))
        feeds.add(middleware: RequireBearerToken(guardingReads: true))
        feeds.get { _, context in context.identity.map { "\($0)" } ?? "none" }
        try await Application(router: router).test(.router) { client in
            let writer = try await client.execute(uri: "/who", method: .post, headers: [.authorization: "Bearer write-token"])
            #expect(String(buffer: writer.body) == "writer")
            let lowercase = try await client.execute(uri: "/who", method: .post, headers: [.authorization: "bearer write-token"])
            #expect(lowercase.status == .ok)
            let reader = try await client.execute(uri: "/feed", method: .get, headers: [.authorization: "Bearer read-token"])
            #expect(String(buffer: reader.body) == "reader")
            let writerOnFeed = try await client.execute(uri: "/feed", method: .get, headers: [.authorization: "Bearer write-token"])
            #expect(String(buffer: writerOnFeed.body) == "writer")
            let readerWriting = try await client.execute(uri: "/who", method: .post, headers: [.authorization: "Bearer read-token"])
            #expect(readerWriting.status == .unauthorized)
            #expect(readerWriting.headers[.wwwAuthenticate]?.contains(#"error="invalid_token""#) == true)
            #expect(try await client.execute(uri: "/feed", method: .get).status == .unauthorized)
        }
    }
}
