import Foundation
import Testing
import LiteRecord

/// Two declarations of one entity that differ only in the order of their
/// searchable attributes: the model fingerprint sorts attributes by name, so
/// opening the store with the other order runs no migration, and the FTS5
/// table keeps the column order it was created with.
private enum TitleFirst {
    @Entity(name: "Ordered") final class Ordered {
        @Attribute(.searchable(weight: 3)) var title = ""
        @Attribute(.searchable) var body = ""
        init() {}
        init(_ title: String, _ body: String) { self.title = title; self.body = body }
    }
}

private enum BodyFirst {
    @Entity(name: "Ordered") final class Ordered {
        @Attribute(.searchable) var body = ""
        @Attribute(.searchable(weight: 3)) var title = ""
        init() {}
    }
}

/// BM25 weights and snippet columns follow the index's own column order,
/// not the order the attributes are declared in.
@Suite struct SearchColumnOrderTests {
    @Test func reorderedDeclarationsKeepWeightsAndSnippetsOnTheirAttributes() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("ordered.sqlite")
        let first = try RecordStack(storeAt: url, entities: [TitleFirst.Ordered.self])
        let context = first.newContext()
        context.insert(TitleFirst.Ordered("notes", "rust body text"))
        context.insert(TitleFirst.Ordered("rust title", "notes"))
        try context.save()
        try first.close()

        #expect(try !RecordStack.requiresMigration(storeAt: url, entities: [BodyFirst.Ordered.self]))
        let stack = try RecordStack(storeAt: url, entities: [BodyFirst.Ordered.self])
        let hits = try BodyFirst.Ordered.searchResults("rust", in: stack.newContext())
        #expect(hits.map(\.object.title) == ["rust title", "notes"], "the title (weight 3) match ranks first")
        let top = try #require(hits.first)
        #expect(top.snippet(of: \.title) == "**rust** title")
        #expect(top.snippet(of: \.body) == "notes")
        let second = try #require(hits.last)
        #expect(second.snippet(of: \.body) == "**rust** body text")
        #expect(second.snippet(of: \.title) == "notes")
        try stack.close()
    }
}
