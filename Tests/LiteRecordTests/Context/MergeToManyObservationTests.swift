import Foundation
import Observation
import Synchronization
import Testing
import LiteRecord

/// A merge tells only the to-many lists whose membership changed: a book of another author that changed its title leaves every
/// author's loaded list alone, and a SwiftUI list does not re-render.
@Suite struct MergeToManyObservationTests {
    @MainActor private func seededStack() throws -> (RecordStack, MAuthor, MAuthor, RecordID) {
        let stack = try RecordStack(inMemoryWith: [MAuthor.self, MBook.self, MTag.self])
        let seed = stack.newContext()
        let ann = MAuthor(name: "Ann")
        let bob = MAuthor(name: "Bob")
        seed.insert(ann)
        seed.insert(bob)
        for index in 0..<3 { _ = MBook(title: "A\(index)", author: ann) }
        let bobsBook = MBook(title: "B0", author: bob)
        try seed.save()
        let main = stack.mainContext
        let authors = try main.fetch(FetchRequest<MAuthor>(sortBy: [SortDescriptor(\.name)], relationshipKeyPathsForPrefetching: [\MAuthor.books]))
        #expect(authors.map(\.books.count) == [3, 1])
        return (stack, authors[0], authors[1], try #require(bobsBook.recordID))
    }

    @Test @MainActor func aTitleChangeInAnotherListNotifiesNoList() async throws {
        let (stack, ann, bob, bobsBook) = try seededStack()
        let changes = Atomic<Int>(0)
        withObservationTracking {
            _ = ann.books
        } onChange: {
            changes.add(1, ordering: .relaxed)
        }
        withObservationTracking {
            _ = bob.books
        } onChange: {
            changes.add(1, ordering: .relaxed)
        }
        try await stack.write { context in
            try context.object(with: bobsBook, as: MBook.self)?.title = "B0, revised"
        }
        #expect(changes.load(ordering: .relaxed) == 0)
        #expect(bob.books.map(\.title) == ["B0, revised"])
        #expect(ann.books.count == 3)
    }

    @Test @MainActor func aMoveNotifiesTheTwoListsItChanges() async throws {
        let (stack, ann, bob, bobsBook) = try seededStack()
        let annChanges = Atomic<Int>(0)
        let bobChanges = Atomic<Int>(0)
        withObservationTracking {
            _ = ann.books
        } onChange: {
            annChanges.add(1, ordering: .relaxed)
        }
        withObservationTracking {
            _ = bob.books
        } onChange: {
            bobChanges.add(1, ordering: .relaxed)
        }
        let annID = try #require(ann.recordID)
        try await stack.write { context in
            let book = try context.object(with: bobsBook, as: MBook.self)
            book?.author = try context.object(with: annID, as: MAuthor.self)
        }
        #expect(annChanges.load(ordering: .relaxed) == 1)
        #expect(bobChanges.load(ordering: .relaxed) == 1)
        #expect(ann.books.count == 4)
        #expect(bob.books.isEmpty)
    }

    @Test @MainActor func anInsertAndADeleteNotifyTheirListOnly() async throws {
        let (stack, ann, bob, _) = try seededStack()
        let annChanges = Atomic<Int>(0)
        let bobChanges = Atomic<Int>(0)
        withObservationTracking {
            _ = ann.books
        } onChange: {
            annChanges.add(1, ordering: .relaxed)
        }
        withObservationTracking {
            _ = bob.books
        } onChange: {
            bobChanges.add(1, ordering: .relaxed)
        }
        let annID = try #require(ann.recordID)
        try await stack.write { context in
            _ = MBook(title: "A3", author: try context.object(with: annID, as: MAuthor.self))
        }
        #expect(annChanges.load(ordering: .relaxed) == 1)
        #expect(bobChanges.load(ordering: .relaxed) == 0)
        #expect(ann.books.count == 4)
    }

    @Test @MainActor func aManyToManyLinkNotifiesOnlyTheLinkedTagsList() async throws {
        let stack = try RecordStack(inMemoryWith: [MAuthor.self, MBook.self, MTag.self])
        let seed = stack.newContext()
        let swift = MTag(label: "swift")
        let sql = MTag(label: "sql")
        seed.insert(swift)
        seed.insert(sql)
        let book = MBook(title: "T")
        seed.insert(book)
        try seed.save()
        let tags = try stack.mainContext.fetch(FetchRequest<MTag>(sortBy: [SortDescriptor(\.label)], relationshipKeyPathsForPrefetching: [\MTag.books]))
        #expect(tags.map(\.books.count) == [0, 0])
        let sqlChanges = Atomic<Int>(0)
        let swiftChanges = Atomic<Int>(0)
        withObservationTracking {
            _ = tags[0].books
        } onChange: {
            sqlChanges.add(1, ordering: .relaxed)
        }
        withObservationTracking {
            _ = tags[1].books
        } onChange: {
            swiftChanges.add(1, ordering: .relaxed)
        }
        let (bookID, swiftID) = (try #require(book.recordID), try #require(swift.recordID))
        try await stack.write { context in
            let tag = try #require(try context.object(with: swiftID, as: MTag.self))
            try context.object(with: bookID, as: MBook.self)?.tags.append(tag)
        }
        #expect(swiftChanges.load(ordering: .relaxed) == 1)
        #expect(sqlChanges.load(ordering: .relaxed) == 0)
        #expect(tags[1].books.count == 1)
    }
}
