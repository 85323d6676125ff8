import LiteRecord
import LiteRecordHTTP
import Testing

@Entity
final class Item {
    @Attribute(.unique) var code = ""

    init() {}
}

/// Entity tags and the two conditional headers, as RFC 9110 §8.8.3 and
/// §13.1.1–2 define them; making a tag never traps.
@Suite struct EntityTagTests {
    func condition(_ values: String...) throws -> EntityTagCondition {
        try EntityTagCondition(fieldValues: values, field: "If-Match")
    }

    func tag(_ text: String, weak: Bool = false) throws -> EntityTag {
        try #require(EntityTag(text, weak: weak))
    }

    @Test func parsesStarListsWeakTagsAndSeveralLines() throws {
        #expect(try condition("*") == .any)
        #expect(try condition(" * ") == .any)
        #expect(try condition("\"1.2\"") == .tags([tag("1.2")]))
        #expect(try condition("W/\"1.2\"") == .tags([tag("1.2", weak: true)]))
        #expect(try condition("\"1\", \"2\"") == .tags([tag("1"), tag("2")]))
        // Two header lines are one list; empty list elements are skipped.
        #expect(try condition("\"1\"", "W/\"2\" ,, \"3\"") == .tags([tag("1"), tag("2", weak: true), tag("3")]))
        // A comma is an entity-tag character.
        #expect(try condition("\"a,b\"") == .tags([tag("a,b")]))
    }

    @Test func refusesWhatIsNotAnEntityTagListWith400() {
        for value in ["2", "\"2", "W/2", "w/\"2\"", "\"2\" x", "\"1\", 2", "*, \"1\"", "\"a b\"", "", " , "] {
            let problem = #expect(throws: HTTPProblem.self, "\(value)") { try condition(value) }
            #expect(problem?.status == 400)
            #expect(problem?.detail.contains("If-Match") == true)
        }
    }

    @Test func ifMatchComparesStronglyIfNoneMatchWeakly() throws {
        let current = try tag("7.3")
        #expect(EntityTagCondition.tags([try tag("7.3")]).matches(current, weakly: false))
        #expect(!EntityTagCondition.tags([try tag("7.3", weak: true)]).matches(current, weakly: false))
        #expect(EntityTagCondition.tags([try tag("7.3", weak: true)]).matches(current, weakly: true))
        #expect(!EntityTagCondition.tags([try tag("8.3")]).matches(current, weakly: false))
        #expect(EntityTagCondition.any.matches(current, weakly: false))
        #expect(!EntityTagCondition.any.matches(nil, weakly: false))
        #expect(current.description == "\"7.3\"")
        #expect(try tag("7.3", weak: true).description == "W/\"7.3\"")
    }

    @Test func textThatNoHeaderCouldCarryGivesNil() {
        for text in ["two words", "quote\"d", "tab\there", "\u{7F}", "line\nbreak"] {
            #expect(EntityTag(text) == nil, "\(text)")
        }
        #expect(EntityTag("")?.description == "\"\"")
    }

    @Test func aRowsTagIsItsIdAndVersion() async throws {
        #expect(EntityTag(id: 7, version: 3).description == "\"7.3\"")
        let stack = try RecordStack(inMemoryWith: [Item.self])
        let tag = try await stack.write { context in
            let item = Item()
            context.insert(item)
            #expect(EntityTag(for: item) == nil)
            item.code = "a"
            try context.save()
            return EntityTag(for: item)
        }
        #expect(tag?.opaqueTag.hasPrefix("1.") == true)
        try stack.close()
    }
}
