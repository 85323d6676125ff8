import Foundation
import Testing
@testable import LiteRecord

/// "Article" with an attribute more than ``SearchArticle``: a model change
/// that keeps the full-text index as it is.
private enum WithRating {
    @Entity(name: "Article") final class Article {
        @Attribute(.searchable(weight: 3)) var title = ""
        @Attribute(.searchable) var body: String?
        var views = 0
        var draft = false
        var rating = 0
        init() {}
    }
}

/// A searchable entity with a unique attribute, to fail a save mid-way.
@Entity(name: "Tagged")
private final class Tagged {
    @Attribute(.unique) var code = ""
    @Attribute(.searchable) var text = ""
    init() {}
    init(_ code: String, _ text: String) { self.code = code; self.text = text }
}

/// A save indexes the rows it inserts (and reindexes those whose searchable
/// text it updates) itself, after its row statements, while the insert and
/// update triggers skip them (the deferral flag); every other writer still
/// goes through the triggers. Each test checks the index with
/// FTS5's `integrity-check` and that the flag is not left set.
@Suite struct SearchDeferredInsertTests {
    private static let oldUpdateTrigger = """
        CREATE TRIGGER "literecord_search:Article:update" AFTER UPDATE OF "title", "body" ON "Article" \
        WHEN old."title" IS NOT new."title" OR old."body" IS NOT new."body" BEGIN \
        INSERT INTO "literecord_search:Article"("literecord_search:Article", rowid, "title", "body") VALUES ('delete', old."Z_PK", old."title", old."body"); \
        INSERT INTO "literecord_search:Article"(rowid, "title", "body") VALUES (new."Z_PK", new."title", new."body"); END
        """
    private static let oldInsertTrigger = """
        CREATE TRIGGER "literecord_search:Article:insert" AFTER INSERT ON "Article" BEGIN \
        INSERT INTO "literecord_search:Article"(rowid, "title", "body") VALUES (new."Z_PK", new."title", new."body"); END
        """

    private func flagRows(_ connection: Connection) throws -> Int64 {
        try connection.count("SELECT COUNT(*) FROM \(SQLIdentifier.quote(Model.searchDeferralTable))")
    }

    private func flagRows(_ stack: RecordStack) throws -> Int64 {
        try stack.store.withConnection("reading the deferral flag") { try flagRows($0) }
    }

    /// FTS5 writes its pending words at every statement savepoint; through
    /// the trigger, each inserted row was written to the index on its own.
    /// Deferred, one save of 60 rows writes the index a few times.
    @Test func aSaveWritesTheIndexOnceForAllItsRows() throws {
        let stack = try RecordStack(inMemoryWith: [SearchArticle.self])
        let context = stack.newContext()
        for index in 0..<60 { context.insert(SearchArticle("Deferred \(index)", "shared words here number\(index)")) }
        let (_, statements) = try stack.recordingSQL { try context.save() }
        let indexWrites = statements.filter { $0.contains("literecord_search:Article_data") && !$0.hasPrefix("SELECT") }
        #expect(indexWrites.count < 10, "\(indexWrites.count) writes of the index's data: \(indexWrites.prefix(5))")
        #expect(try SearchArticle.search("shared", in: context).count == 60)
        #expect(try SearchArticle.search("number17", in: context).map(\.title) == ["Deferred 17"])
        #expect(try stack.searchIndexProblem("Article") == nil)
        #expect(try flagRows(stack) == 0)
    }

    /// A save that inserts, edits and deletes, with relationships (the
    /// new posts' foreign keys are written after their rows), in two
    /// entities.
    @Test func aMixedSaveWithRelationshipsStaysExact() throws {
        let stack = try RecordStack(inMemoryWith: [SearchBlog.self, SearchPost.self, SearchArticle.self])
        let context = stack.newContext()
        let blog = SearchBlog("Birds")
        context.insert(blog)
        let old = SearchPost("old post about herons")
        context.insert(old)
        old.blog = blog
        let doomed = SearchArticle("Doomed article", "herons")
        context.insert(doomed)
        try context.save()

        old.text = "edited post about storks"
        context.delete(doomed)
        for index in 0..<5 {
            // Posts inserted before the blog they name: their foreign keys
            // are written once the blog has its row id.
            let post = SearchPost("new post \(index) about herons")
            context.insert(post)
            let other = SearchBlog("Blog \(index)")
            context.insert(other)
            post.blog = other
            context.insert(SearchArticle("Article \(index)", "herons and storks"))
        }
        try context.save()
        #expect(try SearchPost.search("herons", in: context).count == 5)
        #expect(try SearchPost.search("storks", in: context).map(\.text) == ["edited post about storks"])
        #expect(try SearchArticle.search("herons", in: context).count == 5)
        #expect(try SearchArticle.search("doomed", in: context).isEmpty)
        #expect(try stack.searchIndexProblem("Post") == nil)
        #expect(try stack.searchIndexProblem("Article") == nil)
        #expect(try flagRows(stack) == 0)
    }

    /// Once the largest row id is taken, SQLite picks new row ids at random:
    /// a save's rows are then no range, and are named one by one.
    @Test func rowIDsThatAreNoRangeAreIndexedToo() throws {
        let stack = try RecordStack(inMemoryWith: [SearchArticle.self])
        try stack.store.rawWrite("taking the largest row id") { connection in
            try connection.execute("INSERT INTO Article (Z_PK, title, views, draft) VALUES (9223372036854775807, 'Last row', 0, 0)")
        }
        let context = stack.newContext()
        let articles = (0..<30).map { SearchArticle("Scattered \($0)", "scattered text") }
        for article in articles { context.insert(article) }
        try context.save()
        let ids = articles.compactMap(\.recordID?.rowID).sorted()
        #expect(ids.count == 30)
        #expect(ids.last! - ids.first! + 1 != Int64(ids.count), "the row ids are no range: \(ids)")
        #expect(try SearchArticle.search("scattered", in: context).count == 30)
        #expect(try SearchArticle.search("last", in: context).map(\.title) == ["Last row"], "the raw insert went through the trigger")
        #expect(try stack.searchIndexProblem("Article") == nil)
        #expect(try flagRows(stack) == 0)
    }

    /// A save that fails at an insert after the flag was set rolls the flag
    /// back with its rows: the next writer's inserts are indexed.
    @Test func aFailedSaveLeavesTheFlagUnset() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("failed.sqlite")
        let stack = try RecordStack(storeAt: url, entities: [Tagged.self])
        let context = stack.newContext()
        context.insert(Tagged("a", "first saved"))
        try context.save()
        let failing = stack.newContext()
        failing.insert(Tagged("b", "never saved"))
        failing.insert(Tagged("a", "duplicate code"))
        #expect(throws: LiteRecordError.self) { try failing.save() }
        #expect(try flagRows(stack) == 0)
        #expect(try Tagged.search("never", in: stack.newContext()).isEmpty)

        let raw = try Connection(path: url.path)
        defer { raw.close() }
        try raw.execute("INSERT INTO Tagged (code, text) VALUES ('c', 'raw insert afterwards')")
        #expect(try raw.searchRowIDs("Tagged", "afterwards").count == 1)
        #expect(try raw.searchIndexProblem(EntityDescription.searchTableName(table: "Tagged")) == nil)
        try stack.close()
    }

    /// Another connection that is not LiteRecord's (no functions, no
    /// contexts) inserts with plain SQL: the trigger indexes the row.
    @Test func aRawInsertByAPlainConnectionIsIndexed() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("raw.sqlite")
        let stack = try RecordStack(storeAt: url, entities: [SearchArticle.self])
        let context = stack.newContext()
        context.insert(SearchArticle("Saved first", "through a context"))
        try context.save()
        let raw = try Connection(path: url.path)
        defer { raw.close() }
        try raw.execute("INSERT INTO Article (title, body, views, draft) VALUES ('Raw row', 'written by another tool', 0, 0)")
        try raw.execute("INSERT INTO Article (title, views, draft) SELECT 'Copied ' || title, 1, 0 FROM Article WHERE title = 'Saved first'")
        #expect(try raw.searchRowIDs("Article", "tool").count == 1)
        #expect(try raw.searchRowIDs("Article", "copied").count == 1)
        #expect(try SearchArticle.search("raw OR copied", in: stack.newContext()).map(\.title).sorted() == ["Copied Saved first", "Raw row"])
        #expect(try stack.searchIndexProblem("Article") == nil)
        try stack.close()
    }

    /// Updates of searchable text are deferred the same way: one removal of
    /// the old words and one indexing of the new ones per entity.
    @Test func anUpdateSaveWritesTheIndexOnceForAllItsRows() throws {
        let stack = try RecordStack(inMemoryWith: [SearchArticle.self])
        let context = stack.newContext()
        let articles = (0..<60).map { SearchArticle("Before \($0)", "old words number\($0)", views: $0) }
        for article in articles { context.insert(article) }
        try context.save()
        for article in articles {
            article.title = "After \(article.views)"
            if article.views.isMultiple(of: 2) { article.body = "new words" }
            if article.views.isMultiple(of: 3) { article.draft = true }
        }
        let (_, statements) = try stack.recordingSQL { try context.save() }
        let indexWrites = statements.filter { $0.contains("literecord_search:Article_data") && !$0.hasPrefix("SELECT") }
        #expect(indexWrites.count < 10, "\(indexWrites.count) writes of the index's data: \(indexWrites.prefix(5))")
        #expect(try SearchArticle.search("before", in: context).isEmpty)
        #expect(try SearchArticle.search("after", in: context).count == 60)
        #expect(try SearchArticle.search("old", in: context).count == 30)
        #expect(try SearchArticle.search("new", in: context).count == 30)
        #expect(try SearchArticle.search("number7", in: context).map(\.title) == ["After 7"])
        #expect(try stack.searchIndexProblem("Article") == nil)
        #expect(try flagRows(stack) == 0)

        // An update that writes no searchable attribute leaves the index alone.
        articles[0].views = 1000
        let (_, untouched) = try stack.recordingSQL { try context.save() }
        #expect(!untouched.contains { $0.contains("literecord_search") }, "\(untouched)")
    }

    /// Rows another context changed since they were read: under `.error`
    /// the save fails and rolls back; under `.objectTrumps` the conflicting
    /// rows are written again after the deferred part, through the trigger.
    @Test(arguments: [MergePolicy.error, .objectTrumps, .storeTrumps])
    func conflictingUpdatesKeepTheIndexExact(_ policy: MergePolicy) throws {
        let stack = try RecordStack(inMemoryWith: [SearchArticle.self])
        let setup = stack.newContext()
        for index in 0..<10 { setup.insert(SearchArticle("Original \(index)", "text", views: index)) }
        try setup.save()
        let mine = stack.newContext()
        mine.mergePolicy = policy
        let other = stack.newContext()
        let myRows = try SearchArticle.findAll(sortedBy: [SortDescriptor(\.views)], in: mine)
        let theirRows = try SearchArticle.findAll(sortedBy: [SortDescriptor(\.views)], in: other)
        for row in theirRows.prefix(3) { row.title = "Theirs \(row.views)" }
        try other.save()
        for row in myRows { row.title = "Mine \(row.views)" }
        if policy == .error {
            #expect(throws: LiteRecordError.self) { try mine.save() }
        } else {
            try mine.save()
        }
        let reader = stack.newContext()
        let stored = try SearchArticle.findAll(in: reader).map(\.title)
        for word in ["original", "theirs", "mine"] {
            let expected = stored.filter { $0.lowercased().hasPrefix(word) }.sorted()
            #expect(try SearchArticle.search(word, in: reader).map(\.title).sorted() == expected, "\(policy) \(word)")
        }
        #expect(try stack.searchIndexProblem("Article") == nil)
        #expect(try flagRows(stack) == 0)
    }

    /// Makes `url`'s store look as the previous LiteRecord wrote it: format
    /// 2, the insert trigger without the `WHEN`, no deferral table.
    private func makeFormat2(_ url: URL) throws {
        let connection = try Connection(path: url.path)
        defer { connection.close() }
        try connection.execute("DROP TRIGGER \"literecord_search:Article:insert\"")
        try connection.execute(Self.oldInsertTrigger)
        try connection.execute("DROP TRIGGER \"literecord_search:Article:update\"")
        try connection.execute(Self.oldUpdateTrigger)
        try connection.execute("DROP TABLE \(SQLIdentifier.quote(Model.searchDeferralTable))")
        try connection.execute("UPDATE literecord_metadata SET value = '2' WHERE key = 'format_version'")
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    private func insertTriggerSQL(_ url: URL, _ kind: String = "insert") throws -> String? {
        let connection = try Connection(path: url.path, options: .init(readOnly: true, create: false))
        defer { connection.close() }
        return try connection.scalar("SELECT sql FROM sqlite_schema WHERE name = ?", [.text("literecord_search:Article:\(kind)")])?.textValue
    }

    private func seedFormat2Store(_ url: URL) throws {
        let writer = try RecordStack(storeAt: url, entities: [SearchArticle.self])
        let context = writer.newContext()
        context.insert(SearchArticle("Stored before", "the upgrade"))
        try context.save()
        try writer.close()
        try makeFormat2(url)
        #expect(try insertTriggerSQL(url) == Self.oldInsertTrigger)
        #expect(try insertTriggerSQL(url, "update") == Self.oldUpdateTrigger)
    }

    /// An earlier LiteRecord that migrates a store of the current format
    /// writes its own triggers back under the current format number; opening
    /// it here replaces them again, or every save would index its rows twice.
    @Test func earlierTriggersInAStoreOfTheCurrentFormatAreReplacedWhenOpened() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("rewritten.sqlite")
        try seedFormat2Store(url)
        do {
            let connection = try Connection(path: url.path)
            defer { connection.close() }
            try connection.execute(
                "UPDATE literecord_metadata SET value = '\(StoreFormat.current)' WHERE key = 'format_version'")
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        #expect(try insertTriggerSQL(url) == Self.oldInsertTrigger)

        let stack = try RecordStack(storeAt: url, entities: [SearchArticle.self])
        #expect(try #require(try insertTriggerSQL(url)).contains("WHEN NOT EXISTS"))
        #expect(try #require(try insertTriggerSQL(url, "update")).contains("WHEN NOT EXISTS"))
        let context = stack.newContext()
        for index in 0..<20 { context.insert(SearchArticle("Added \(index)", "after the upgrade")) }
        try context.save()
        let stored = try #require(try SearchArticle.search("stored", in: context).first)
        stored.title = "Edited after"
        try context.save()
        #expect(try SearchArticle.search("upgrade", in: context).count == 21)
        #expect(try SearchArticle.search("edited", in: context).count == 1)
        #expect(try stack.searchIndexProblem("Article") == nil, "each row indexed once")
        try stack.close()
    }

    @Test(arguments: [false, true])
    func aStoreOfThePreviousFormatIsUpgradedWhenOpened(migrating: Bool) throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("format2.sqlite")
        try seedFormat2Store(url)

        // Read-only, it is read as it is.
        let reader = try RecordStack(storeAt: url, entities: [SearchArticle.self], readOnly: true)
        #expect(try SearchArticle.search("upgrade", in: reader.newContext()).count == 1)
        try reader.close()
        #expect(try insertTriggerSQL(url) == Self.oldInsertTrigger)

        let stack: RecordStack
        if migrating {
            stack = try RecordStack(storeAt: url, entities: [WithRating.Article.self], migration: .automatic)
            let report = try #require(stack.lastMigrationReport)
            #expect(report.droppedSearchIndexes.isEmpty && report.createdSearchIndexes.isEmpty, "the index is kept: \(report)")
        } else {
            stack = try RecordStack(storeAt: url, entities: [SearchArticle.self])
        }
        let trigger = try #require(try insertTriggerSQL(url))
        #expect(trigger.contains("WHEN NOT EXISTS"), "\(trigger)")
        let updateTrigger = try #require(try insertTriggerSQL(url, "update"))
        #expect(updateTrigger.contains("WHEN NOT EXISTS"), "\(updateTrigger)")
        let context = stack.newContext()
        if migrating {
            for index in 0..<20 {
                let article = WithRating.Article()
                (article.title, article.body) = ("Added \(index)", "after the upgrade")
                context.insert(article)
            }
            try context.save()
            #expect(try WithRating.Article.search("upgrade", in: context).count == 21)
            let stored = try #require(try WithRating.Article.search("stored", in: context).first)
            stored.title = "Edited after"
            try context.save()
            #expect(try WithRating.Article.search("edited", in: context).count == 1)
        } else {
            for index in 0..<20 { context.insert(SearchArticle("Added \(index)", "after the upgrade")) }
            try context.save()
            #expect(try SearchArticle.search("upgrade", in: context).count == 21)
            let stored = try #require(try SearchArticle.search("stored", in: context).first)
            stored.title = "Edited after"
            try context.save()
            #expect(try SearchArticle.search("edited", in: context).count == 1)
        }
        #expect(try stack.searchIndexProblem("Article") == nil)
        #expect(try flagRows(stack) == 0)
        #expect(try stack.store.withConnection("reading the format") { try $0.storeFormat() } == StoreFormat.current)
        try stack.close()
        #expect(try StoreCheck(storeAt: url).isHealthy)
        let inspection = try StoreInspection(storeAt: url)
        #expect(inspection.tablesMatchModel == true, "\(inspection.schemaDifferences)")
    }
}
