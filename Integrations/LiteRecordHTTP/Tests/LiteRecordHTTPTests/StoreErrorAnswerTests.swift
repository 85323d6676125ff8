import Foundation
import LiteRecord
import LiteRecordHTTP
import Testing

/// The status, problem type and sentence each store error is answered
/// with; the library's message never reaches the sentence.
@Suite struct StoreErrorAnswerTests {
    @Test func aTakenUniqueValueIs409NamingTheAttribute() async throws {
        let stack = try RecordStack(inMemoryWith: [Item.self])
        defer { try? stack.close() }
        try await stack.write { store in
            let item = Item()
            store.insert(item)
            item.code = "a"
        }
        let error = await #expect(throws: LiteRecordError.self) {
            try await stack.write { store in
                let item = Item()
                store.insert(item)
                item.code = "a"
            }
        }
        let thrown = try #require(error)
        #expect(thrown.httpStatusCode == 409)
        #expect(thrown.violatedColumns == ["Item.code"])
        let answer = StoreErrorAnswer(thrown)
        #expect(answer.problem.status == 409)
        #expect(answer.problem.type == StoreProblem.uniqueViolation)
        #expect(answer.problem.detail == "the change conflicts with a stored record: the value of Item.code must be unique, and it is taken")
        #expect(answer.severity == .client)
    }

    @Test func aClosedStoreIs503WithRetryAfter() async throws {
        let stack = try RecordStack(inMemoryWith: [Item.self])
        try stack.close()
        let error = await #expect(throws: LiteRecordError.self) { try await stack.read { try Item.count(in: $0) } }
        let answer = StoreErrorAnswer(try #require(error))
        #expect(answer.problem.status == 503)
        #expect(answer.problem.headers == ["Retry-After": "1"])
        #expect(answer.problem.type == StoreProblem.storeUnavailable)
        #expect(answer.severity == .unavailable)
    }

    @Test func theGenericSentenceQuotesTheRequestIdOnly() {
        #expect(StoreErrorAnswer.genericDetail(requestID: "r-1") == "the server could not answer this request (request id r-1)")
        #expect(StoreErrorAnswer.genericDetail(requestID: nil) == "the server could not answer this request")
    }

    @Test func theProblemDocumentOfRFC9457() throws {
        let data = try ProblemDocument(status: 404, title: "Not Found", type: HTTPProblem.blank, detail: "no item 7/8").json()
        #expect(String(decoding: data, as: UTF8.self)
            == #"{"detail":"no item 7/8","error":{"message":"no item 7/8"},"status":404,"title":"Not Found","type":"about:blank"}"#)
    }
}
