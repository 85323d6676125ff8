import Foundation
import Observation
import Synchronization
import Testing
@testable import LiteRecord

/// The bulk paths of relationships (a prefetch grouping rows owner by owner,
/// a cascade taking many objects out of lists at once, deletions ordered
/// across entities) give what the object-by-object paths give.
@Suite struct RelationshipBulkPathTests {
    let stack: RecordStack

    init() throws {
        stack = try RecordStack(inMemoryWith: relationshipEntities)
        let context = stack.newContext()
        let authors = (0..<4).map { RAuthor("A\($0)") }
        for author in authors { context.insert(author) }
        // Books of the authors interleaved, so that no list is one run of row ids.
        for index in 0..<40 { RBook("B\(index)").author = authors[index % 4] }
        try context.save()
    }

    private func rowIDs(_ books: [RBook]) -> [Int64] { books.compactMap(\.recordState.rowID) }

    @Test func prefetchedListsMatchListsLoadedOneByOneInRowIDOrder() throws {
        let prefetching = stack.newContext()
        let (authors, statements) = try stack.recordingSQL {
            try prefetching.fetch(FetchRequest<RAuthor>(relationshipKeyPathsForPrefetching: [\RAuthor.books]))
        }
        #expect(statements.count == 2)
        let lazy = stack.newContext()
        let loaded = try RAuthor.findAll(in: lazy)
        #expect(authors.map(\.name) == loaded.map(\.name))
        for (author, other) in zip(authors, loaded) {
            let ids = rowIDs(author.books)
            #expect(ids.count == 10)
            #expect(ids == ids.sorted())
            #expect(ids == rowIDs(other.books))
        }
    }

    @Test func everyAuthorScansTheBooksAndSomeAuthorsUseTheIndexWithTheSameLists() throws {
        let whole = stack.newContext()
        let (all, scan) = try stack.recordingSQL {
            try whole.fetch(FetchRequest<RAuthor>(relationshipKeyPathsForPrefetching: [\RAuthor.books]))
        }
        let some = stack.newContext()
        let (selected, index) = try stack.recordingSQL {
            try some.fetch(FetchRequest<RAuthor>(predicate: #Predicate { $0.name != "" }, relationshipKeyPathsForPrefetching: [\RAuthor.books]))
        }
        #expect(scan.count == 2)
        #expect(index.count == 2)
        // One pass over the table for every author, testing no row against
        // the authors' ids (every set foreign key names one of them); the
        // index, read in order, for a selection.
        #expect(scan.last?.contains("WHERE +\"author\" IS NOT NULL") == true)
        #expect(scan.last?.contains("json_each") == false)
        #expect(index.last?.contains("ORDER BY \"author\", \"Z_PK\"") == true)
        #expect(all.map(\.name) == selected.map(\.name))
        for (author, other) in zip(all, selected) {
            #expect(rowIDs(author.books) == rowIDs(other.books))
            #expect(author.books.allSatisfy { $0.author === author })
        }
    }

    @Test(arguments: [false, true])
    func aBookMovedInMemoryIsListedUnderItsNewAuthorInRowIDOrder(selecting: Bool) throws {
        let context = stack.newContext()
        let authors = try RAuthor.findAll(in: context)
        let (from, to) = (authors[0], authors[1])
        // Registered and moved before the prefetch reads it under its old author.
        let moved = try #require(try context.fetch(FetchRequest<RBook>(predicate: #Predicate { $0.title == "B4" })).first)
        #expect(moved.author === from)
        moved.author = to
        let fetched = try context.fetch(
            selecting
                ? FetchRequest<RAuthor>(predicate: #Predicate { $0.name != "" }, relationshipKeyPathsForPrefetching: [\RAuthor.books])
                : FetchRequest<RAuthor>(relationshipKeyPathsForPrefetching: [\RAuthor.books]))
        #expect(fetched.count == 4)
        #expect(!from.books.contains { $0 === moved })
        #expect(from.books.count == 9)
        #expect(to.books.contains { $0 === moved })
        #expect(to.books.count == 11)
        #expect(rowIDs(to.books) == rowIDs(to.books).sorted())
        #expect(rowIDs(from.books) == rowIDs(from.books).sorted())
    }

    @Test func aCascadeEmptiesTheDeletedOwnersListAndReportsEveryObject() throws {
        let context = stack.newContext()
        let authors = try context.fetch(FetchRequest<RAuthor>(relationshipKeyPathsForPrefetching: [\RAuthor.books]))
        let author = authors[2]
        let books = author.books
        #expect(books.count == 10)
        context.delete(author)
        #expect(author.books.isEmpty)
        #expect(books.allSatisfy { $0.recordState.phase == .deleted })
        let deleted = Set(context.deletedObjects.map { ObjectIdentifier($0) })
        #expect(deleted.count == 11)
        #expect(deleted.contains(ObjectIdentifier(author)))
        #expect(books.allSatisfy { deleted.contains(ObjectIdentifier($0)) })
        // The other authors keep their lists.
        #expect(authors.filter { $0 !== author }.allSatisfy { $0.books.count == 10 })
        try context.save()
        #expect(try RBook.count(in: stack.newContext()) == 30)
    }

    @Test @MainActor func aCascadeTellsTheObserversOfTheDeletedOwnersList() throws {
        let stack = try RecordStack(inMemoryWith: [MAuthor.self, MBook.self, MTag.self])
        let seed = stack.newContext()
        let ann = MAuthor(name: "Ann")
        seed.insert(ann)
        for index in 0..<5 { _ = MBook(title: "B\(index)", author: ann) }
        try seed.save()
        // The main context's objects are observable.
        let context = stack.mainContext
        let author = try #require(try context.fetch(FetchRequest<MAuthor>(relationshipKeyPathsForPrefetching: [\MAuthor.books])).first)
        #expect(author.books.count == 5)
        let changes = Atomic<Int>(0)
        withObservationTracking {
            _ = author.books
        } onChange: {
            changes.add(1, ordering: .relaxed)
        }
        context.delete(author)
        #expect(changes.load(ordering: .relaxed) == 1)
        #expect(author.books.isEmpty)
        #expect(context.deletedObjects.count == 6)
    }

    @Test func deletingABookAloneStillLeavesItsLiveAuthorsList() throws {
        let context = stack.newContext()
        let authors = try context.fetch(FetchRequest<RAuthor>(relationshipKeyPathsForPrefetching: [\RAuthor.books]))
        let author = authors[0]
        let book = author.books[3]
        context.delete(book)
        #expect(author.books.count == 9)
        #expect(!author.books.contains { $0 === book })
        try context.save()
        let name = author.name
        let fresh = stack.newContext()
        let again = try #require(try fresh.fetch(FetchRequest<RAuthor>(predicate: #Predicate { $0.name == name })).first)
        #expect(again.books.count == 9)
    }

    @Test func aSaveDeletesTheRowsHoldingForeignKeysBeforeTheRowsTheyName() throws {
        let context = stack.newContext()
        let authors = try context.fetch(FetchRequest<RAuthor>(relationshipKeyPathsForPrefetching: [\RAuthor.books]))
        // The authors first, so the deleted list starts with an author.
        for author in authors.prefix(3) { context.delete(author) }
        let (_, statements) = try stack.recordingSQL { try context.save() }
        let deletes = statements.filter { $0.hasPrefix("DELETE") }
        #expect(deletes.count == 2)
        #expect(deletes.first?.contains("\"Book\"") == true)
        #expect(deletes.last?.contains("\"Author\"") == true)
        let fresh = stack.newContext()
        #expect(try RAuthor.count(in: fresh) == 1)
        #expect(try RBook.count(in: fresh) == 10)
    }

    @Test func distinctRowIDsKeepTheirFirstAppearanceWhetherDenseOrSparse() {
        #expect(RecordContext.distinct([5, 3, 5, 4, 3]) == [5, 3, 4])
        #expect(RecordContext.distinct([10, 1_000_000, 10]) == [10, 1_000_000])
        #expect(RecordContext.distinct([1, Int64.max, 1, Int64.min, Int64.max]) == [1, Int64.max, Int64.min])
        #expect(RecordContext.distinct([]) == [])
    }

    @Test func aToOnePrefetchReadsOnlyTheAuthorsNotYetInTheContext() throws {
        let context = stack.newContext()
        let known = try #require(try context.fetch(FetchRequest<RAuthor>(predicate: #Predicate { $0.name == "A1" })).first)
        let (books, statements) = try stack.recordingSQL {
            try context.fetch(FetchRequest<RBook>(relationshipKeyPathsForPrefetching: [\RBook.author]))
        }
        #expect(statements.count == 2)
        #expect(books.count == 40)
        let (names, none) = stack.recordingSQL { books.compactMap { $0.author?.name } }
        #expect(none.isEmpty)
        #expect(names.count == 40)
        #expect(books.filter { $0.author === known }.count == 10)
        #expect(Set(names) == ["A0", "A1", "A2", "A3"])
    }

    @Test func deletionRanksPutAnEntityBeforeTheEntitiesItsToOnesName() throws {
        let ranks = stack.model.deletionRanks
        let book = try #require(ranks[ObjectIdentifier(RBook.self)])
        let author = try #require(ranks[ObjectIdentifier(RAuthor.self)])
        #expect(book < author)
        #expect(Set(ranks.values).count == stack.model.entities.count)
    }
}
