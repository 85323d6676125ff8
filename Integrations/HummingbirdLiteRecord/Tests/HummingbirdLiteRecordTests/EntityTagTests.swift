import Hummingbird
import LiteRecord
import HummingbirdLiteRecord
import Testing

/// Entity tags and the two conditional headers, as RFC 9110 §8.8.3 and
/// §13.1.1–2 define them.
@Suite struct EntityTagTests {
    func condition(_ values: String...) throws -> EntityTagCondition {
        try EntityTagCondition(fieldValues: values, field: "If-Match")
    }

    @Test func parsesStarListsWeakTagsAndSeveralLines() throws {
        #expect(try condition("*") == .any)
        #expect(try condition(" * ") == .any)
        #expect(try condition("\"1.2\"") == .tags([EntityTag("1.2")!]))
        #expect(try condition("W/\"1.2\"") == .tags([EntityTag("1.2", weak: true)!]))
        #expect(try condition("\"1\", \"2\"") == .tags([EntityTag("1")!, EntityTag("2")!]))
        // Two header lines are one list; empty list elements are skipped.
        #expect(try condition("\"1\"", "W/\"2\" ,, \"3\"") == .tags([EntityTag("1")!, EntityTag("2", weak: true)!, EntityTag("3")!]))
        // A comma is an entity-tag character.
        #expect(try condition("\"a,b\"") == .tags([EntityTag("a,b")!]))
    }

    @Test func refusesWhatIsNotAnEntityTagList() {
        // The parsing is LiteRecordHTTP's (a 400 problem); the request's
        // accessors throw it as the HTTPError they always have.
        for value in ["2", "\"2", "W/2", "w/\"2\"", "\"2\" x", "\"1\", 2", "*, \"1\"", "\"a b\"", "", " , "] {
            let problem = #expect(throws: HTTPProblem.self, "\(value)") { try condition(value) }
            #expect(problem?.status == 400)
        }
    }

    @Test func ifMatchComparesStronglyIfNoneMatchWeakly() throws {
        let current = EntityTag("7.3")!
        #expect(EntityTagCondition.tags([EntityTag("7.3")!]).matches(current, weakly: false))
        #expect(!EntityTagCondition.tags([EntityTag("7.3", weak: true)!]).matches(current, weakly: false))
        #expect(EntityTagCondition.tags([EntityTag("7.3", weak: true)!]).matches(current, weakly: true))
        #expect(EntityTagCondition.tags([EntityTag("1")!, EntityTag("7.3")!]).matches(current, weakly: false))
        #expect(!EntityTagCondition.tags([EntityTag("8.3")!]).matches(current, weakly: false))
        // `*` matches any current representation, and nothing when there is none.
        #expect(EntityTagCondition.any.matches(current, weakly: false))
        #expect(!EntityTagCondition.any.matches(nil, weakly: false))
        #expect(EntityTag("7.3")!.description == "\"7.3\"")
        #expect(EntityTag("7.3", weak: true)!.description == "W/\"7.3\"")
    }

    @Test func requestChecksAnswer428412And304() throws {
        func request(_ headers: HTTPFields) -> Request {
            Request(head: .init(method: .put, scheme: "http", authority: "localhost", path: "/todos/7", headerFields: headers),
                    body: .init(buffer: ByteBuffer()))
        }
        let current = EntityTag("7.3")!
        #expect(throws: Never.self) { try request([:]).checkIfMatch(current: current) }
        #expect(throws: Never.self) { try request([.ifMatch: "\"7.3\""]).checkIfMatch(current: current, required: true) }
        let missing = #expect(throws: HTTPError.self) { try request([:]).checkIfMatch(current: current, required: true) }
        #expect(missing?.status == .preconditionRequired)
        let weak = #expect(throws: HTTPError.self) { try request([.ifMatch: "W/\"7.3\""]).checkIfMatch(current: current) }
        #expect(weak?.status == .preconditionFailed)
        #expect(weak?.headers[.eTag] == "\"7.3\"")
        let gone = #expect(throws: HTTPError.self) { try request([.ifMatch: "*"]).checkIfMatch(current: nil) }
        #expect(gone?.status == .preconditionFailed)
        let bare = #expect(throws: HTTPError.self) { try request([.ifMatch: "3"]).checkIfMatch(current: current) }
        #expect(bare?.status == .badRequest)
        #expect(try request([.ifNoneMatch: "W/\"7.3\""]).isNotModified(current: current))
        #expect(try request([.ifNoneMatch: "*"]).isNotModified(current: current))
        #expect(try !request([.ifNoneMatch: "\"7.2\""]).isNotModified(current: current))
        #expect(try !request([:]).isNotModified(current: current))
        let notModified = Response.notModified(current)
        #expect(notModified.status == .notModified)
        #expect(notModified.headers[.eTag] == "\"7.3\"")
    }
}

/// Making a tag never traps.
@Suite struct EntityTagMakingTests {
    @Test func textThatNoHeaderCouldCarryGivesNil() {
        for text in ["two words", "quote\"d", "tab\there", "\u{7F}", "line\nbreak"] {
            #expect(EntityTag(text) == nil, "\(text)")
        }
        #expect(EntityTag("7.3")?.description == "\"7.3\"")
        #expect(EntityTag("")?.description == "\"\"")
    }

    @Test func aRowsTagIsItsIdAndVersion() async throws {
        #expect(EntityTag(id: 7, version: 3).description == "\"7.3\"")
        let stack = try RecordStack(inMemoryWith: [Todo.self])
        let tag = try await stack.write { context in
            let todo = Todo()
            context.insert(todo)
            #expect(EntityTag(for: todo) == nil)
            todo.title = "t"
            try context.save()
            return try #require(EntityTag(for: todo))
        }
        #expect(tag == EntityTag(id: 1, version: 2))
    }
}
