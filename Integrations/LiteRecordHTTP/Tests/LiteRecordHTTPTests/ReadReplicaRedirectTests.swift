import Foundation
import LiteRecordHTTP
import Testing

/// A replica's answer to a write: 307 to the same path and query on the
/// primary, or 421 when the primary is not known.
@Suite struct ReadReplicaRedirectTests {
    @Test func aWriteIs307ToThePrimaryOr421() {
        let replica = ReadReplicaRedirect(primary: URL(string: "http://10.0.0.5:8080/api//"))
        let redirect = replica.refusal(method: "DELETE", path: "/products/7", query: "dry=1")
        #expect(redirect.status == 307)
        #expect(redirect.headers == ["Location": "http://10.0.0.5:8080/api/products/7?dry=1"])
        #expect(redirect.detail.contains("read replica"))
        let unknown = ReadReplicaRedirect(primary: nil).refusal(method: "POST", path: "/products", query: nil)
        #expect(unknown.status == 421)
        #expect(unknown.headers.isEmpty)
    }

    @Test func readsAreNotWrites() {
        for method in ["GET", "HEAD", "OPTIONS", "get"] { #expect(!ReadReplicaRedirect.isWrite(method: method), "\(method)") }
        for method in ["POST", "PUT", "PATCH", "DELETE", "PROPFIND"] { #expect(ReadReplicaRedirect.isWrite(method: method), "\(method)") }
    }
}
