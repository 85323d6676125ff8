import Foundation
import Testing
@testable import LiteRecord

/// Versions of one entity "Doc": without search, with it, with the
/// searchable attribute renamed, with an unrelated attribute added.
private enum Plain {
    @Entity(name: "Doc") final class Doc {
        var title = ""
        var body = ""
        init() {}
        init(_ title: String, _ body: String) { self.title = title; self.body = body }
    }
}

private enum Searchable {
    @Entity(name: "Doc") final class Doc {
        @Attribute(.searchable) var title = ""
        @Attribute(.searchable) var body = ""
        init() {}
        init(_ title: String, _ body: String) { self.title = title; self.body = body }
    }
}

private enum Renamed {
    @Entity(name: "Doc") final class Doc {
        @Attribute(.searchable, originalName: "title") var headline = ""
        @Attribute(.searchable) var body = ""
        init() {}
    }
}

private enum Extended {
    @Entity(name: "Doc") final class Doc {
        @Attribute(.searchable) var title = ""
        @Attribute(.searchable) var body = ""
        var rating = 0
        init() {}
    }
}

private enum BodyOnly {
    @Entity(name: "Doc") final class Doc {
        var title = ""
        @Attribute(.searchable) var body = ""
        init() {}
    }
}

@Suite struct SearchMigrationTests {
    let folder: TemporaryDirectory
    let url: URL

    init() throws {
        folder = try TemporaryDirectory()
        url = folder.file("docs.sqlite")
    }

    /// A store of the plain model holding two documents, one written in NFD.
    private func plainStore() throws {
        let stack = try RecordStack(storeAt: url, entities: [Plain.Doc.self])
        let context = stack.newContext()
        context.insert(Plain.Doc("Migrating stores", "schema changes"))
        context.insert(Plain.Doc("Cafe\u{301} notes", "re\u{301}sume\u{301}"))
        try context.save()
        try stack.close()
    }

    @Test func theFingerprintSeesSearchableAndTheWeightDoesNot() throws {
        let plain = try Model(entities: [Plain.Doc.self])
        let searchable = try Model(entities: [Searchable.Doc.self])
        #expect(plain.fingerprint != searchable.fingerprint)
        #expect(
            plain.schema.changes(to: searchable.schema).map(\.description) == [
                "Doc: attribute 'body' became searchable", "Doc: attribute 'title' became searchable",
            ])
        #expect(try Model(entities: [SearchArticle.self]).entity(named: "Article")?.attributes[0].searchWeight == 3)
        // A model without search encodes exactly as before search existed.
        #expect(!(try plain.schema.encoded()).contains("isSearchable"))
    }

    @Test func addingSearchableBuildsTheIndexForStoredRows() throws {
        try plainStore()
        #expect(try RecordStack.requiresMigration(storeAt: url, entities: [Searchable.Doc.self]))
        let stack = try RecordStack(storeAt: url, entities: [Searchable.Doc.self], migration: .automatic)
        let report = try #require(stack.lastMigrationReport)
        #expect(report.createdSearchIndexes == ["literecord_search:Doc"])
        #expect(report.changes.contains("Doc: attribute 'title' became searchable"))
        #expect(report.actions.contains { $0.contains("created full-text index literecord_search:Doc") && $0.contains("2 record(s)") })
        #expect("\(report)".contains("created full-text index literecord_search:Doc"))
        let context = stack.newContext()
        #expect(try Searchable.Doc.search("schema", in: context).map(\.title) == ["Migrating stores"])
        #expect(try Searchable.Doc.search("café résumé", in: context).count == 1, "stored NFD text was brought to NFC and indexed")
        #expect(try stack.searchIndexProblem("Doc") == nil)
        context.insert(Searchable.Doc("New after migration", "fresh"))
        try context.save()
        #expect(try Searchable.Doc.search("fresh", in: context).count == 1)
        try stack.close()
        #expect(try StoreCheck(storeAt: url).isHealthy)
        #expect(try !RecordStack.requiresMigration(storeAt: url, entities: [Searchable.Doc.self]))
    }

    @Test func removingSearchableDropsTheIndex() throws {
        try plainStore()
        try RecordStack(storeAt: url, entities: [Searchable.Doc.self], migration: .automatic).close()
        #expect(try RecordStack.requiresMigration(storeAt: url, entities: [Plain.Doc.self]))
        let stack = try RecordStack(storeAt: url, entities: [Plain.Doc.self], migration: .automatic)
        #expect(stack.lastMigrationReport?.droppedSearchIndexes == ["literecord_search:Doc"])
        #expect(try stack.searchObjects().isEmpty, "no FTS5 table or trigger is left")
        let context = stack.newContext()
        context.insert(Plain.Doc("Still writable", "yes"))
        try context.save()
        #expect(try Plain.Doc.count(in: context) == 3)
        try stack.close()
        let inspection = try StoreInspection(storeAt: url)
        #expect(inspection.searchIndexes.isEmpty)
        #expect(inspection.schemaDifferences.isEmpty, "\(inspection.schemaDifferences)")
    }

    @Test func renamingASearchableAttributeKeepsItSearchable() throws {
        try plainStore()
        try RecordStack(storeAt: url, entities: [Searchable.Doc.self], migration: .automatic).close()
        let stack = try RecordStack(storeAt: url, entities: [Renamed.Doc.self], migration: .automatic)
        let report = try #require(stack.lastMigrationReport)
        #expect(report.changes.contains("Doc: attribute 'title' renamed to 'headline'"))
        #expect(report.createdSearchIndexes == ["literecord_search:Doc"], "\(report.actions)")
        let context = stack.newContext()
        #expect(try Renamed.Doc.search("migrating", in: context).map(\.headline) == ["Migrating stores"])
        let doc = try #require(try Renamed.Doc.search("migrating", in: context).first)
        doc.headline = "Renamed columns"
        try context.save()
        #expect(try Renamed.Doc.search("migrating", in: context).isEmpty)
        #expect(try Renamed.Doc.search("renamed", in: context).count == 1)
        #expect(try stack.searchIndexProblem("Doc") == nil)
        try stack.close()
        #expect(try StoreCheck(storeAt: url).isHealthy)
        #expect(try StoreInspection(storeAt: url).searchIndexes.map(\.columns) == [["headline", "body"]])
    }

    @Test func changingWhichAttributesAreSearchableRebuildsTheIndex() throws {
        try plainStore()
        try RecordStack(storeAt: url, entities: [Searchable.Doc.self], migration: .automatic).close()
        let stack = try RecordStack(storeAt: url, entities: [BodyOnly.Doc.self], migration: .automatic)
        #expect(stack.lastMigrationReport?.changes == ["Doc: attribute 'title' is no longer searchable"])
        let context = stack.newContext()
        #expect(try BodyOnly.Doc.search("migrating", in: context).isEmpty, "the title is no longer indexed")
        #expect(try BodyOnly.Doc.search("schema", in: context).count == 1)
        #expect(try stack.searchIndexProblem("Doc") == nil)
        try stack.close()
    }

    @Test func anUnrelatedChangeKeepsTheIndexAsItIs() throws {
        try plainStore()
        try RecordStack(storeAt: url, entities: [Searchable.Doc.self], migration: .automatic).close()
        let stack = try RecordStack(storeAt: url, entities: [Extended.Doc.self], migration: .automatic)
        let report = try #require(stack.lastMigrationReport)
        #expect(report.createdSearchIndexes.isEmpty && report.droppedSearchIndexes.isEmpty, "\(report.actions)")
        let context = stack.newContext()
        let doc = try #require(try Extended.Doc.search("schema", in: context).first)
        doc.rating = 5
        doc.body = "index changes"
        try context.save()
        #expect(try Extended.Doc.search("index", in: context).map(\.rating) == [5])
        #expect(try stack.searchIndexProblem("Doc") == nil)
        try stack.close()
    }

    @Test func checkVerifiesTheIndexAndInspectShowsIt() throws {
        try plainStore()
        let stack = try RecordStack(storeAt: url, entities: [Searchable.Doc.self], migration: .automatic)
        try stack.close()
        let inspection = try StoreInspection(storeAt: url)
        let index = try #require(inspection.searchIndexes.first)
        #expect(index.name == "literecord_search:Doc" && index.entity == "Doc" && index.columns == ["title", "body"])
        #expect(index.triggers.sorted() == ["literecord_search:Doc:delete", "literecord_search:Doc:insert", "literecord_search:Doc:update"])
        #expect(inspection.tables.map(\.name) == ["Doc"], "the FTS5 tables are not listed as tables")
        #expect(inspection.schemaDifferences.isEmpty, "\(inspection.schemaDifferences)")
        #expect(inspection.entities.first?.attributes.map(\.isSearchable) == [true, true])
        #expect(try StoreCheck(storeAt: url).isHealthy)

        // Writes that bypass the trigger leave the index behind the table.
        let raw = try Connection(path: url.path)
        try raw.execute("DROP TRIGGER \"literecord_search:Doc:update\"")
        try raw.execute("UPDATE Doc SET title = 'Out of step'")
        raw.close()
        let check = try StoreCheck(storeAt: url)
        #expect(!check.isHealthy)
        #expect(check.problems.contains { $0.contains("literecord_search:Doc") }, "\(check.problems)")
        #expect(try StoreInspection(storeAt: url).schemaDifferences == ["Doc: trigger 'literecord_search:Doc:update' of the full-text index is missing"])
        #expect(FileManager.default.fileExists(atPath: url.path))
    }

    @Test func theCommandLineChecksAndShowsTheIndex() async throws {
        let binary = try Reliability.binary()
        try plainStore()
        try RecordStack(storeAt: url, entities: [Searchable.Doc.self], migration: .automatic).close()
        let healthy = try await Reliability.run(binary, ["check", url.path])
        #expect(healthy.status == 0, "\(healthy.standardError)")
        #expect(healthy.standardOutput.contains("and the full-text index check (literecord_search:Doc)"), "\(healthy.standardOutput)")
        let inspect = try await Reliability.run(binary, ["inspect", url.path])
        #expect(inspect.standardOutput.contains("  full-text index literecord_search:Doc (title, body; 3 triggers)"), "\(inspect.standardOutput)")
        #expect(inspect.standardOutput.contains("tables:       match the model description"))
        let json = try await Reliability.run(binary, ["inspect", url.path, "--json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let indexes = try #require(document["searchIndexes"] as? [[String: Any]])
        #expect(indexes.count == 1)
        #expect(indexes.first?["name"] as? String == "literecord_search:Doc")
        #expect(indexes.first?["columns"] as? [String] == ["title", "body"])
        #expect((indexes.first?["triggers"] as? [String])?.count == 3)

        let raw = try Connection(path: url.path)
        try raw.execute("DROP TRIGGER \"literecord_search:Doc:delete\"")
        try raw.execute("DELETE FROM Doc WHERE title LIKE 'Migrating%'")
        raw.close()
        let broken = try await Reliability.run(binary, ["check", url.path])
        #expect(broken.status == 1)
        #expect(broken.standardOutput.contains("problem: the full-text index literecord_search:Doc does not match its table"), "\(broken.standardOutput)")
    }
}
