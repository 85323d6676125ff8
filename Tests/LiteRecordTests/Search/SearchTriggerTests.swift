import Foundation
import Testing
@testable import LiteRecord

/// Two searchable entities whose index names collide with FTS5's shadow
/// tables: the index of `Note` keeps a table `literecord_search:Note_config`,
/// the name of `Note_config`'s index.
private enum Colliding {
    @Entity(name: "Note") final class Note {
        @Attribute(.searchable) var text = ""
        init() {}
    }

    @Entity(name: "Note_config") final class NoteConfig {
        @Attribute(.searchable) var text = ""
        init() {}
    }

    @Entity(name: "Note_Data") final class NoteData {
        @Attribute(.searchable) var text = ""
        init() {}
    }

    /// Not searchable: it has no index, so nothing collides.
    @Entity(name: "Note_idx") final class PlainNoteIndex {
        var text = ""
        init() {}
    }
}

/// The triggers that keep a full-text index exact follow every write to the
/// table, and a store whose triggers were tampered with gets them back.
@Suite struct SearchTriggerTests {
    /// A file store holding three articles, closed.
    private func makeStore(_ url: URL) throws {
        let stack = try RecordStack(storeAt: url, entities: [SearchArticle.self])
        let context = stack.newContext()
        for title in ["alpha one", "beta two", "gamma three"] { context.insert(SearchArticle(title)) }
        try context.save()
        try stack.close()
    }

    @Test func changingARowIDMovesItsWords() throws {
        let stack = try RecordStack(inMemoryWith: [SearchArticle.self])
        let context = stack.newContext()
        for title in ["alpha one", "beta two"] { context.insert(SearchArticle(title)) }
        try context.save()
        try stack.store.rawWrite("moving a row") { connection in
            try connection.executeOnce("UPDATE \"Article\" SET \"Z_PK\" = 100 WHERE title = 'alpha one'")
        }
        #expect(try stack.searchIndexProblem("Article") == nil)
        let ids = try stack.store.withConnection("matching") { try $0.searchRowIDs("Article", "alpha") }
        #expect(ids == [100])
        #expect(try SearchArticle.search("alpha", in: stack.newContext()).map(\.title) == ["alpha one"])
    }

    @Test func aMissingDeleteTriggerIsRestoredAtTheNextWritableOpen() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("triggers.sqlite")
        try makeStore(url)
        let raw = try Connection(path: url.path, options: Connection.OpenOptions(create: false))
        try raw.execute("DROP TRIGGER \"literecord_search:Article:delete\"")
        raw.close()

        let stack = try RecordStack(storeAt: url, entities: [SearchArticle.self])
        #expect(try stack.searchObjects().contains("literecord_search:Article:delete"), "restored without a migration")
        let context = stack.newContext()
        let beta = try #require(try SearchArticle.search("beta", in: context).first)
        context.delete(beta)
        try context.save()
        #expect(try stack.searchIndexProblem("Article") == nil)
        #expect(try SearchArticle.search("beta", in: context).isEmpty)
        try stack.close()
    }

    @Test func searchableEntitiesWhoseIndexesCollideAreRefused() throws {
        for pair: [any Entity.Type] in [
            [Colliding.Note.self, Colliding.NoteConfig.self],
            [Colliding.NoteConfig.self, Colliding.Note.self],
            [Colliding.Note.self, Colliding.NoteData.self],
        ] {
            let error = try #require(throws: LiteRecordError.self) { try Model(entities: pair) }
            #expect(error.kind == .invalidModel)
            #expect(error.message.contains("'Note'") && error.message.contains("full-text index"), "\(error.message)")
        }
        #expect(throws: Never.self) { try Model(entities: [Colliding.Note.self, Colliding.PlainNoteIndex.self]) }
        #expect(throws: Never.self) { try Model(entities: [Colliding.NoteConfig.self, Colliding.NoteData.self]) }
    }
}
