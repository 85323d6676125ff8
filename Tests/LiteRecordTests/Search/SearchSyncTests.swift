import Foundation
import Testing
@testable import LiteRecord

/// The full-text index follows every path that writes an entity's table, in
/// the same transaction: each test writes one way, then checks what search
/// finds and runs FTS5's `integrity-check` of the index against the table.
@Suite struct SearchSyncTests {
    private func titles(_ text: String, _ context: RecordContext) throws -> [String] {
        try SearchArticle.search(text, in: context).map(\.title).sorted()
    }

    @Test func savesInsertUpdateAndDelete() throws {
        let stack = try RecordStack(inMemoryWith: [SearchArticle.self])
        let context = stack.newContext()
        let first = SearchArticle("Alpha apples", "red fruit")
        let second = SearchArticle("Beta bananas")
        context.insert(first)
        context.insert(second)
        try context.save()
        #expect(try titles("apples", context) == ["Alpha apples"])
        #expect(try stack.searchIndexProblem("Article") == nil)

        first.title = "Alpha apricots"
        second.body = "yellow fruit"
        try context.save()
        #expect(try titles("apples", context).isEmpty, "the old words are gone")
        #expect(try titles("apricots", context) == ["Alpha apricots"])
        #expect(try titles("fruit", context) == ["Alpha apricots", "Beta bananas"])
        #expect(try stack.searchIndexProblem("Article") == nil)

        second.body = nil
        first.views = 10
        try context.save()
        #expect(try titles("yellow", context).isEmpty, "a value set to nil leaves the index")
        #expect(try titles("red", context) == ["Alpha apricots"], "changing another attribute keeps the text indexed")
        #expect(try stack.searchIndexProblem("Article") == nil)

        context.delete(first)
        try context.save()
        #expect(try titles("alpha", context).isEmpty)
        #expect(try titles("beta", context) == ["Beta bananas"])
        #expect(try stack.searchIndexProblem("Article") == nil)
    }

    @Test func anUpdateOfOtherAttributesLeavesTheIndexAlone() throws {
        let stack = try RecordStack(inMemoryWith: [SearchArticle.self])
        let context = stack.newContext()
        let article = SearchArticle("Stable words", "unchanging")
        context.insert(article)
        try context.save()
        func indexPages() throws -> [SQLValue] {
            try stack.store.withConnection("reading the index") { connection in
                try connection.rows("SELECT block FROM \"literecord_search:Article_data\" ORDER BY id").map { $0[0] }
            }
        }
        let before = try indexPages()
        article.views += 1
        article.draft = true
        try context.save()
        #expect(try indexPages() == before, "no searchable value changed: the trigger does not run")
        article.title = "Changed words"
        try context.save()
        #expect(try indexPages() != before)
    }

    @Test func setBasedDeleteAndTruncate() throws {
        let stack = try RecordStack(inMemoryWith: [SearchArticle.self])
        let context = stack.newContext()
        for index in 0..<20 { context.insert(SearchArticle("Item \(index)", "common text", views: index)) }
        try context.save()
        let deleted = try SearchArticle.deleteAll(matching: #Predicate { $0.views >= 5 }, in: context)
        #expect(deleted == 15)
        #expect(try SearchArticle.search("common", in: context).count == 5)
        #expect(try stack.searchIndexProblem("Article") == nil)
        #expect(try SearchArticle.truncateAll(in: context) == 5)
        #expect(try SearchArticle.search("common", in: context).isEmpty)
        #expect(try stack.searchIndexProblem("Article") == nil)
        context.insert(SearchArticle("After truncate", "common"))
        try context.save()
        #expect(try titles("common", context) == ["After truncate"])
        #expect(try stack.searchIndexProblem("Article") == nil)
    }

    /// Before the save, a search leaves out what an unsaved deletion takes
    /// along, as a fetch does: posts of a deleted blog whose posts were never
    /// loaded (the cascade is left to the store at the save).
    @Test func anUnsavedCascadeIsLeftOutOfASearchAsOfAFetch() throws {
        let stack = try RecordStack(inMemoryWith: [SearchBlog.self, SearchPost.self])
        let writer = stack.newContext()
        for (name, text) in [("Kept", "kept post about owls"), ("Doomed", "doomed post about owls")] {
            let blog = SearchBlog(name)
            let post = SearchPost(text)
            writer.insert(blog)
            writer.insert(post)
            post.blog = blog
        }
        try writer.save()
        let context = stack.newContext()
        let doomed = try #require(try SearchBlog.findAll(in: context).first { $0.name == "Doomed" })
        context.delete(doomed)
        #expect(try SearchPost.search("owls", in: context).map(\.text) == ["kept post about owls"])
        #expect(try SearchPost.findAll(in: context).map(\.text) == ["kept post about owls"])
        try context.save()
        #expect(try SearchPost.search("owls", in: stack.newContext()).map(\.text) == ["kept post about owls"])
    }

    @Test func cascadesOfDeleteRulesLeaveTheIndex() throws {
        let stack = try RecordStack(inMemoryWith: [SearchBlog.self, SearchPost.self])
        let context = stack.newContext()
        let kept = SearchBlog("Kept")
        let doomed = SearchBlog("Doomed")
        let other = SearchBlog("Other")
        for (blog, text) in [(kept, "kept post about owls"), (doomed, "doomed post about owls"), (other, "other post about owls")] {
            let post = SearchPost(text)
            context.insert(blog)
            context.insert(post)
            post.blog = blog
        }
        try context.save()
        #expect(try SearchPost.search("owls", in: context).count == 3)

        // The context's delete rule takes the posts with the blog.
        context.delete(doomed)
        try context.save()
        #expect(try SearchPost.search("owls", in: context).map(\.text).sorted() == ["kept post about owls", "other post about owls"])
        #expect(try stack.searchIndexProblem("Post") == nil)

        // A set-based delete applies the same rule in SQL.
        #expect(try SearchBlog.deleteAll(matching: #Predicate { $0.name == "Other" }, in: context) == 1)
        #expect(try SearchPost.search("owls", in: context).map(\.text) == ["kept post about owls"])
        #expect(try stack.searchIndexProblem("Post") == nil)
        #expect(try SearchBlog.truncateAll(in: context) == 1)
        #expect(try SearchPost.search("owls", in: context).isEmpty)
        #expect(try stack.searchIndexProblem("Post") == nil)
    }

    @Test func importChildContextsAndWriteContexts() async throws {
        let stack = try RecordStack(inMemoryWith: [SearchArticle.self])
        let context = stack.newContext()
        _ = try SearchArticle.importObjects(
            from: [["title": "Imported gazelle", "body": "savanna"], ["title": "Imported zebra", "views": 3]], in: context)
        try context.save()
        #expect(try titles("imported", context) == ["Imported gazelle", "Imported zebra"])

        let child = context.makeChildContext()
        let zebra = try #require(try SearchArticle.search("zebra", in: child).first)
        zebra.title = "Imported okapi"
        child.insert(SearchArticle("Child lion"))
        try child.save()
        #expect(try titles("okapi", context).isEmpty, "a child's save reaches its parent, not the store")
        try context.save()
        #expect(try titles("okapi", context) == ["Imported okapi"])
        #expect(try titles("lion", context) == ["Child lion"])
        #expect(try titles("zebra", context).isEmpty)

        try await stack.write { context in
            context.insert(SearchArticle("Written hyena"))
            if let gazelle = try SearchArticle.search("gazelle", in: context).first { context.delete(gazelle) }
        }
        #expect(try titles("hyena", context) == ["Written hyena"])
        #expect(try titles("gazelle", context).isEmpty)
        #expect(try stack.searchIndexProblem("Article") == nil)
    }

    @Test func anotherConnectionsWritesAreIndexedToo() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("search.sqlite")
        let one = try RecordStack(storeAt: url, entities: [SearchArticle.self])
        let two = try RecordStack(storeAt: url, entities: [SearchArticle.self])
        let writer = two.newContext()
        writer.insert(SearchArticle("From the other stack", "elsewhere"))
        try writer.save()
        let reader = one.newContext()
        #expect(try titles("elsewhere", reader) == ["From the other stack"])
        // Raw SQL outside LiteRecord's contexts (a migration step, a tool) too.
        try two.store.rawWrite("raw update") {
            try $0.execute("UPDATE Article SET title = 'Raw title', Z_OPT = Z_OPT + 1 WHERE title = 'From the other stack'")
        }
        #expect(try titles("raw", reader) == ["Raw title"])
        #expect(try one.searchIndexProblem("Article") == nil)
        try one.close()
        try two.close()
        #expect(try StoreCheck(storeAt: url).isHealthy)
    }

    @Test func aReadOnlyStackSearches() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("read-only.sqlite")
        let writer = try RecordStack(storeAt: url, entities: [SearchArticle.self])
        let context = writer.newContext()
        context.insert(SearchArticle("Read only search", "works"))
        try context.save()
        try writer.close()
        let reader = try RecordStack(storeAt: url, entities: [SearchArticle.self], readOnly: true)
        #expect(try titles("works", reader.newContext()) == ["Read only search"])
        #expect(try SearchArticle.searchResults("read", in: reader.newContext()).first?.snippet(of: \.title) == "**Read** only search")
        try reader.close()
    }

    /// A child process saves batches of searchable notes (inserting,
    /// editing and deleting) and is SIGKILLed at random moments: the store
    /// then passes `literecord check` (FTS5's `integrity-check` included),
    /// and a search finds exactly the rows the table holds.
    @Test func sigkillMidSaveLeavesIndexAndTableConsistent() async throws {
        let binary = try BuiltExecutables.testChild()
        let folder = try TemporaryDirectory()
        let url = folder.file("search-crash.sqlite")
        let seed = UInt64.random(in: 1...UInt64(UInt32.max))
        var random = TrialRandom(seed: seed)
        var acknowledged = 0
        for trial in 0..<8 {
            let delay = Int.random(in: 20...500, using: &random)
            let process = Process()
            process.executableURL = binary
            process.arguments = ["search-writer", url.path]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            try await Task.sleep(for: .milliseconds(delay))
            kill(process.processIdentifier, SIGKILL)
            let printed = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal, "trial \(trial): the child ended before the kill")
            acknowledged += printed.split(separator: "\n").filter { $0.hasPrefix("acked ") }.count
            let context = "trial \(trial), seed \(seed), killed after \(delay) ms"
            guard FileManager.default.fileExists(atPath: url.path) else { continue }
            let check = try StoreCheck(storeAt: url)
            #expect(check.isHealthy, "\(context): \(check.problems)")
            let connection = try Connection(path: url.path, options: .init(readOnly: true, create: false))
            defer { connection.close() }
            guard try connection.tableNames().contains("SearchNote") else { continue }
            let stored = try connection.rows("SELECT Z_PK FROM SearchNote WHERE text LIKE '%crash%' ORDER BY Z_PK").compactMap(\.first?.integerValue)
            #expect(try connection.searchRowIDs("SearchNote", "crash") == stored, "\(context)")
            // A save sets the flag that makes the insert trigger skip its
            // rows only inside its transaction: a kill never leaves it set,
            // so a plain connection's insert is indexed by the trigger.
            let raw = try Connection(path: url.path)
            defer { raw.close() }
            #expect(try raw.count("SELECT COUNT(*) FROM \(SQLIdentifier.quote(Model.searchDeferralTable))") == 0, "\(context)")
            try raw.execute("INSERT INTO SearchNote (text, save) VALUES ('rawinsert\(trial)', 0)")
            #expect(try raw.searchRowIDs("SearchNote", "rawinsert\(trial)").count == 1, "\(context)")
        }
        #expect(acknowledged > 0, "seed \(seed): no save finished before a kill, so no kill came between saves")
    }
}
