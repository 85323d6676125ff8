import Foundation
import LiteRecordHTTP
import Testing

/// The four conditional headers evaluated in RFC 9110 §13.2.2's order
/// against a resource's tag and date, over header strings.
@Suite struct ConditionalRequestTests {
    /// The resource: tag "1.2", last modified at 2026-01-01 00:00:00 UTC.
    static let current = EntityTag(id: 1, version: 2)
    static let modified = Date(timeIntervalSince1970: 1_767_225_600)

    enum Outcome: Equatable { case proceed, notModified, status(Int) }

    func outcome(_ method: String, _ headers: [String: String], current: EntityTag? = current,
                 requiringIfMatch: Bool = false) -> Outcome {
        do {
            let conditions = try ConditionalRequest(
                method: method, path: "/doc",
                ifMatch: headers["If-Match"].map { [$0] } ?? [], ifNoneMatch: headers["If-None-Match"].map { [$0] } ?? [],
                ifUnmodifiedSince: headers["If-Unmodified-Since"].map { [$0] } ?? [],
                ifModifiedSince: headers["If-Modified-Since"].map { [$0] } ?? [])
            if requiringIfMatch { try conditions.requireIfMatch() }
            return try conditions.evaluate(current: current, lastModified: Self.modified) == nil ? .proceed : .notModified
        } catch let problem as HTTPProblem {
            return .status(problem.status)
        } catch {
            return .status(-1)
        }
    }

    @Test func theOrderOfRFC9110() {
        let later = "Fri, 02 Jan 2026 00:00:00 GMT", earlier = "Wed, 31 Dec 2025 00:00:00 GMT"
        let cases: [(String, [String: String], Outcome)] = [
            ("GET", [:], .proceed),
            ("GET", ["If-Match": #""1.2""#], .proceed),
            ("GET", ["If-Match": #""1.1""#], .status(412)),
            // If-Match before If-None-Match: 412, not 304.
            ("GET", ["If-Match": #""1.1""#, "If-None-Match": #""1.2""#], .status(412)),
            ("GET", ["If-None-Match": #"W/"1.2""#], .notModified),
            ("HEAD", ["If-None-Match": "*"], .notModified),
            ("get", ["If-None-Match": "*"], .notModified),
            ("GET", ["If-None-Match": #""1.1""#], .proceed),
            // Dates: If-Unmodified-Since only without If-Match, If-Modified-Since only without If-None-Match.
            ("GET", ["If-Unmodified-Since": earlier], .status(412)),
            ("GET", ["If-Match": #""1.2""#, "If-Unmodified-Since": earlier], .proceed),
            ("GET", ["If-Unmodified-Since": "not a date"], .proceed),
            ("GET", ["If-Modified-Since": later], .notModified),
            ("GET", ["If-Modified-Since": "Thu, 01 Jan 2026 00:00:00 GMT"], .notModified),
            ("GET", ["If-Modified-Since": earlier], .proceed),
            ("GET", ["If-Modified-Since": "Friday, 02-Jan-26 00:00:00 GMT"], .notModified),
            ("GET", ["If-Modified-Since": "Fri Jan  2 00:00:00 2026"], .notModified),
            ("GET", ["If-None-Match": #""1.1""#, "If-Modified-Since": later], .proceed),
            ("PUT", ["If-Modified-Since": later], .proceed),
            // Writes: If-None-Match naming the tag is 412, not 304.
            ("PUT", ["If-Match": #""1.2""#], .proceed),
            ("PUT", ["If-Match": #"W/"1.2""#], .status(412)),
            ("PUT", ["If-Match": #""1.2""#, "If-None-Match": #""1.2""#], .status(412)),
            ("DELETE", ["If-None-Match": "*"], .status(412)),
            ("PUT", ["If-Match": "2"], .status(400)),
        ]
        for (method, headers, expected) in cases {
            #expect(outcome(method, headers) == expected, "\(method) \(headers)")
        }
    }

    @Test func noCurrentRepresentation() {
        #expect(outcome("PUT", ["If-None-Match": "*"], current: nil) == .proceed)
        #expect(outcome("PUT", ["If-Match": "*"], current: nil) == .status(412))
    }

    @Test func requiringIfMatchIs428WithoutIt() throws {
        #expect(outcome("PUT", [:], requiringIfMatch: true) == .status(428))
        #expect(outcome("PUT", ["If-Match": "*"], requiringIfMatch: true) == .proceed)
        let conditions = try ConditionalRequest(method: "PATCH", path: "/doc")
        let problem = #expect(throws: HTTPProblem.self) { try conditions.requireIfMatch() }
        #expect(problem?.detail == "PATCH /doc needs an If-Match header with the ETag of what it changes")
    }

    @Test func a304AndA412CarryTheValidators() throws {
        let get = try ConditionalRequest(method: "GET", path: "/doc", ifNoneMatch: [#""1.2""#])
        let notModified = try #require(try get.evaluate(current: Self.current, lastModified: Self.modified))
        #expect(notModified.headers == ["ETag": #""1.2""#, "Last-Modified": "Thu, 01 Jan 2026 00:00:00 GMT"])
        let put = try ConditionalRequest(method: "PUT", path: "/doc", ifMatch: [#""0.0""#])
        let failed = #expect(throws: HTTPProblem.self) { try put.evaluate(current: Self.current) }
        #expect(failed?.status == 412)
        #expect(failed?.headers["ETag"] == #""1.2""#)
    }

    @Test func severalLinesOfOneTagHeaderAreOneList() throws {
        let put = try ConditionalRequest(method: "PUT", path: "/doc", ifMatch: [#""0.0""#, #""1.2""#])
        #expect(try put.evaluate(current: Self.current) == nil)
        // A date header sent twice is invalid, and ignored.
        let get = try ConditionalRequest(method: "GET", path: "/doc",
                                         ifModifiedSince: ["Fri, 02 Jan 2026 00:00:00 GMT", "Fri, 02 Jan 2026 00:00:00 GMT"])
        #expect(try get.evaluate(current: Self.current, lastModified: Self.modified) == nil)
    }
}
