import Foundation
import Testing
@testable import LiteRecord

@Entity(name: "STLBook")
final class STLBook {
    var title = ""
    @Relationship(deleteRule: .nullify) var tags: [STLTag] = []
    init() {}
}

@Entity(name: "STLTag")
final class STLTag {
    var label = ""
    @Relationship(inverse: \STLBook.tags) var books: [STLBook] = []
    init() {}
}

/// Docs/Concurrency.md: every write moves a row to a new version, and a
/// many-to-many link changed by a save is a write of both records (the
/// change set names them updated). Model seed 504822 found a record whose
/// conflict `.storeTrumps` resolved for the store (nothing of its own
/// written) and whose link changed in the same save: the change set named it
/// updated but its row kept its version, so the change audit refused the
/// commit and another context holding the row would not meet the change.
@Suite struct StoreTrumpsLinkVersionTests {
    @Test func aLinkOfARecordWhoseConflictTheStoreWonMovesItsVersion() throws {
        let stack = try RecordStack(inMemoryWith: [STLBook.self, STLTag.self])
        let seed = stack.newContext()
        let book = STLBook()
        book.title = "b"
        seed.insert(book)
        let tag = STLTag()
        tag.label = "t"
        seed.insert(tag)
        try seed.save()

        let context = stack.newContext()
        context.mergePolicy = .storeTrumps
        let here = try #require(try STLTag.findAll(in: context).first)
        let hereBook = try #require(try STLBook.findAll(in: context).first)
        let other = stack.newContext()
        try #require(try STLTag.findAll(in: other).first).label = "elsewhere"
        try other.save()
        let versionBefore = try #require(try STLTag.findAll(in: stack.newContext()).first).recordState.version

        here.label = "here"
        hereBook.tags.append(here)
        var published: ChangeSet?
        context.didSave = { published = $0 }
        try context.save()

        let reader = stack.newContext()
        let stored = try #require(try STLTag.findAll(in: reader).first)
        #expect(stored.label == "elsewhere", "the store's newer label won")
        #expect(stored.books.map(\.title) == ["b"], "the link is written")
        #expect(published?.updated.contains(try #require(here.recordID)) == true)
        #expect(stored.recordState.version == versionBefore + 1, "the link moved the row to a new version")
        #expect(here.recordState.version == stored.recordState.version)
    }
}
