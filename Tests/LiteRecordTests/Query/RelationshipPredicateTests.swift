import Foundation
import Testing
@testable import LiteRecord

/// The seeded library shared by the read-only tests.
private let seededLibrary = Result { try RelationshipQuerySeed.stack() }

/// Predicates through relationships run twice — as SQL through every entry
/// point that takes a predicate, and in Swift with `Predicate.evaluate` over
/// all stored objects (whose relationships load lazily) — and must select the
/// same objects, in the same order.
@Suite struct RelationshipPredicateTests {
    /// One predicate over `T`, checked against Swift's own evaluation.
    private func check<T: Entity>(
        _ name: String, _ predicate: Predicate<T>, in context: RecordContext,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let everyone = try T.findAll(in: context)
        let expected = ids(try everyone.filter(predicate))
        let fetched = ids(try T.findAll(matching: predicate, in: context))
        #expect(fetched == expected, "\(name)", sourceLocation: sourceLocation)
        #expect(try T.count(matching: predicate, in: context) == expected.count, "\(name)", sourceLocation: sourceLocation)
        #expect(try T.exists(matching: predicate, in: context) == !expected.isEmpty, "\(name)", sourceLocation: sourceLocation)
        #expect(
            try T.findFirst(matching: predicate, in: context).map { ids([$0]) } == expected.first.map { [$0] },
            "\(name)", sourceLocation: sourceLocation)
        var enumerated: [Int64] = []
        try T.enumerate(matching: predicate, batchSize: 7, in: context) { enumerated.append(ids([$0])[0]) }
        #expect(enumerated == expected, "\(name)", sourceLocation: sourceLocation)
        let request = FetchRequest(predicate: predicate, fetchLimit: 3, fetchOffset: 1)
        #expect(ids(try context.fetch(request)) == Array(expected.dropFirst().prefix(3)), "\(name)", sourceLocation: sourceLocation)
        #expect(try context.count(request) == min(3, max(0, expected.count - 1)), "\(name)", sourceLocation: sourceLocation)
    }

    private func ids<T: Entity>(_ objects: [T]) -> [Int64] {
        objects.map { $0.recordID?.rowID ?? -1 }
    }

    @Test func seedHasTheEdgeCases() throws {
        let context = try seededLibrary.get().newContext()
        let books = try QBook.findAll(in: context)
        let authors = try QAuthor.findAll(in: context)
        #expect(books.contains { $0.author == nil } && books.contains { $0.author != nil })
        #expect(authors.contains { $0.books.isEmpty } && authors.contains { $0.publisher == nil })
        #expect(books.contains { $0.tags.isEmpty } && books.contains { $0.tags.count > 1 })
        #expect(try QTag.findAll(in: context).contains { $0.books.isEmpty })
        #expect(authors.contains { $0.publisher?.city == nil && $0.publisher != nil })
    }

    @Test func toOneKeyPathsMatchSwift() throws {
        let context = try seededLibrary.get().newContext()
        let emile = "\u{C9}mile"
        let zoe = "Zo\u{EB}"
        try check("author.name == Ann", #Predicate<QBook> { $0.author?.name == "Ann" }, in: context)
        try check("author.name != Ann (true for nil)", #Predicate<QBook> { $0.author?.name != "Ann" }, in: context)
        try check("author.name == Zoë (either form)", #Predicate<QBook> { $0.author?.name == zoe }, in: context)
        try check("author.name == nil", #Predicate<QBook> { $0.author?.name == nil }, in: context)
        try check("author.name < M", #Predicate<QBook> { $0.author?.name ?? "" < "M" }, in: context)
        try check("author == nil", #Predicate<QBook> { $0.author == nil }, in: context)
        try check("author != nil", #Predicate<QBook> { $0.author != nil }, in: context)
        try check("author.nickname == nil", #Predicate<QBook> { $0.author?.nickname == nil }, in: context)
        try check("author.nickname != n1", #Predicate<QBook> { $0.author?.nickname != "n1" }, in: context)
        try check("author.age ?? 0 > 40", #Predicate<QBook> { ($0.author?.age ?? 0) > 40 }, in: context)
        try check(
            "author.age > 30 && title == Dune", #Predicate<QBook> { ($0.author?.age ?? 0) > 30 && $0.title == "Dune" },
            in: context)
        try check(
            "author.name contains n", #Predicate<QBook> { $0.author?.name.contains("n") ?? false }, in: context)
        try check(
            "flatMap ?? fallback",
            #Predicate<QBook> { book in book.author.flatMap { $0.age < 40 } ?? (book.pages > 200) }, in: context)
        try check("author.publisher == nil", #Predicate<QBook> { $0.author?.publisher == nil }, in: context)
        try check(
            "author.publisher.name == Émile (either form)", #Predicate<QBook> { $0.author?.publisher?.name == emile },
            in: context)
        try check("author.publisher.city == nil", #Predicate<QBook> { $0.author?.publisher?.city == nil }, in: context)
        try check(
            "author.publisher.city != Paris", #Predicate<QBook> { $0.author?.publisher?.city != "Paris" }, in: context)
        try check("publisher == nil", #Predicate<QAuthor> { $0.publisher == nil }, in: context)
        try check(
            "publisher.name starts with E", #Predicate<QAuthor> { $0.publisher?.name.starts(with: "E") == true },
            in: context)
    }

    @Test func toManyOperationsMatchSwift() throws {
        let context = try seededLibrary.get().newContext()
        let cafe = "caf\u{E9}"
        try check("books contains Dune", #Predicate<QAuthor> { $0.books.contains { $0.title == "Dune" } }, in: context)
        try check("!books contains Dune", #Predicate<QAuthor> { !$0.books.contains { $0.title == "Dune" } }, in: context)
        try check("books.isEmpty", #Predicate<QAuthor> { $0.books.isEmpty }, in: context)
        try check("!books.isEmpty", #Predicate<QAuthor> { !$0.books.isEmpty }, in: context)
        try check("books.count > 4", #Predicate<QAuthor> { $0.books.count > 4 }, in: context)
        try check("books.count == 0", #Predicate<QAuthor> { $0.books.count == 0 }, in: context)
        try check("books allSatisfy pages > 100", #Predicate<QAuthor> { $0.books.allSatisfy { $0.pages > 100 } }, in: context)
        try check(
            "books contains a book tagged sf",
            #Predicate<QAuthor> { $0.books.contains { $0.tags.contains { $0.label == "sf" } } }, in: context)
        try check(
            "books contains one whose author's publisher is Penguin",
            #Predicate<QAuthor> { $0.books.contains { $0.author?.publisher?.name == "Penguin" } }, in: context)
        try check(
            "books contains one with the author's name",
            #Predicate<QAuthor> { author in author.books.contains { $0.title.count == author.name.count } }, in: context)
        try check("tags contains café (either form)", #Predicate<QBook> { $0.tags.contains { $0.label == cafe } }, in: context)
        try check("tags.isEmpty", #Predicate<QBook> { $0.tags.isEmpty }, in: context)
        try check("tags.count >= 2", #Predicate<QBook> { $0.tags.count >= 2 }, in: context)
        try check("tags allSatisfy != sf", #Predicate<QBook> { $0.tags.allSatisfy { $0.label != "sf" } }, in: context)
        try check(
            "tags contains one on more than 10 books", #Predicate<QBook> { $0.tags.contains { $0.books.count > 10 } },
            in: context)
        try check(
            "author.books.count ?? 0 > 4", #Predicate<QBook> { ($0.author?.books.count ?? 0) > 4 }, in: context)
        try check(
            "author's books contain Emma",
            #Predicate<QBook> { $0.author?.books.contains { $0.title == "Emma" } == true }, in: context)
        try check(
            "books (many-to-many) contain one by Ann",
            #Predicate<QTag> { $0.books.contains { $0.author?.name == "Ann" } }, in: context)
        try check("tag.books.isEmpty", #Predicate<QTag> { $0.books.isEmpty }, in: context)
        try check("tag.books.count > 10", #Predicate<QTag> { $0.books.count > 10 }, in: context)
        try check(
            "authors contain one with Dune",
            #Predicate<QPublisher> { $0.authors.contains { $0.books.contains { $0.title == "Dune" } } }, in: context)
        try check(
            "authors all have books", #Predicate<QPublisher> { $0.authors.allSatisfy { !$0.books.isEmpty } }, in: context)
        try check(
            "publisher's authors > 3", #Predicate<QAuthor> { ($0.publisher?.authors.count ?? 0) > 3 }, in: context)
    }

    @Test func objectsAreComparedByRecordID() throws {
        let context = try seededLibrary.get().newContext()
        let ann = try #require(try QAuthor.findFirst(matching: #Predicate { $0.name == "Ann" }, in: context))
        let annID = ann.recordID
        let dune = try #require(try QBook.findFirst(matching: #Predicate { $0.title == "Dune" }, in: context))
        let duneID = dune.recordID
        try check("author.recordID == ann's", #Predicate<QBook> { $0.author?.recordID == annID }, in: context)
        try check("author.recordID != ann's", #Predicate<QBook> { $0.author?.recordID != annID }, in: context)
        try check("recordID == dune's", #Predicate<QBook> { $0.recordID == duneID }, in: context)
        try check("books contain dune", #Predicate<QAuthor> { $0.books.contains { $0.recordID == duneID } }, in: context)
        // A RecordID of another entity never equals an author's, whatever its row id.
        let sameRowOtherEntity: RecordID? = RecordID(entityName: "QTag", rowID: annID?.rowID ?? 0)
        try check("author.recordID == a tag's", #Predicate<QBook> { $0.author?.recordID == sameRowOtherEntity }, in: context)
        try check("author.recordID != a tag's", #Predicate<QBook> { $0.author?.recordID != sameRowOtherEntity }, in: context)
        let someIDs: [RecordID?] = [annID, sameRowOtherEntity, nil]
        try check("author.recordID in a list", #Predicate<QBook> { book in someIDs.contains(book.author.flatMap { $0.recordID }) }, in: context)
        // The author itself is an object of the predicate: `self` comparisons.
        try check(
            "books contain one whose author is not this author",
            #Predicate<QAuthor> { author in author.books.contains { $0.author?.recordID != author.recordID } }, in: context)
        try check(
            "publisher's authors contain this author",
            #Predicate<QAuthor> { author in author.publisher.flatMap { $0.authors.contains(author) } == true }, in: context)
    }

    /// An unsaved object has no `recordID` (it is `nil`), so a predicate
    /// comparing with it compares with `nil`, exactly as Swift evaluates it.
    @Test func anUnsavedObjectsRecordIDIsNil() throws {
        let context = try seededLibrary.get().newContext()
        let unsaved = QAuthor()
        context.insert(unsaved)
        let unsavedID = unsaved.recordID
        #expect(unsavedID == nil)
        let predicate = #Predicate<QBook> { $0.author?.recordID == unsavedID }
        try check("author.recordID == unsaved's", predicate, in: context)
        #expect(try QBook.findAll(matching: predicate, in: context).allSatisfy { $0.author == nil })
    }

    @Test func aRelationshipPredicateIsOneStatement() throws {
        // Its own stack: the shared one records the other tests' statements too.
        let stack = try RelationshipQuerySeed.stack()
        let context = stack.newContext()
        let predicates: [Predicate<QBook>] = [
            #Predicate { $0.author?.publisher?.name == "Penguin" },
            #Predicate { $0.tags.contains { $0.books.count > 3 } && $0.author != nil },
        ]
        for predicate in predicates {
            let (books, statements) = try stack.recordingSQL { try QBook.findAll(matching: predicate, in: context) }
            #expect(!books.isEmpty)
            #expect(statements.count == 1, "\(statements)")
            let (_, counting) = try stack.recordingSQL { try QBook.count(matching: predicate, in: context) }
            #expect(counting.count == 1, "\(counting)")
        }
        let (_, statements) = try stack.recordingSQL {
            try QAuthor.findAll(matching: #Predicate { $0.books.contains { $0.tags.isEmpty } }, in: context)
        }
        #expect(statements.count == 1, "\(statements)")
        #expect(statements.first?.contains("EXISTS") == true)
    }

    @Test func aggregatesAcceptRelationshipPredicates() throws {
        let context = try seededLibrary.get().newContext()
        let predicate = #Predicate<QBook> { $0.author?.name == "Ann" || $0.tags.isEmpty }
        let expected = try QBook.findAll(in: context).filter(predicate)
        #expect(try QBook.aggregate(.sum, of: \.pages, matching: predicate, in: context) == expected.reduce(0) { $0 + $1.pages })
        let byTitle = try QBook.aggregate(.count, of: \.pages, groupedBy: \.title, matching: predicate, in: context)
        #expect(byTitle.values.reduce(0, +) == expected.count)
    }

    @Test func deleteAllAcceptsRelationshipPredicates() throws {
        let stack = try RelationshipQuerySeed.stack()
        let context = stack.newContext()
        let predicate = #Predicate<QBook> { $0.author?.publisher?.name == "Penguin" || $0.tags.count > 2 }
        let everyone = try QBook.findAll(in: context)
        let everyID = Set(ids(everyone))
        let doomed = Set(ids(try everyone.filter(predicate)))
        #expect(!doomed.isEmpty)
        #expect(try QBook.deleteAll(matching: predicate, in: context) == doomed.count)
        let fresh = stack.newContext()
        #expect(Set(ids(try QBook.findAll(in: fresh))) == everyID.subtracting(doomed))
        #expect(try QBook.count(matching: predicate, in: fresh) == 0)
        // The authors' side sees it too: the deleted books are gone from their to-manys.
        let authorPredicate = #Predicate<QAuthor> { $0.books.contains { $0.author?.publisher?.name == "Penguin" } }
        #expect(try QAuthor.count(matching: authorPredicate, in: fresh) == 0)
    }

    @Test func predicatesSeeTheStoreNotUnsavedRelationshipChanges() throws {
        let stack = try RelationshipQuerySeed.stack()
        let context = stack.newContext()
        let orphan = try #require(try QBook.findFirst(matching: #Predicate { $0.author == nil }, in: context))
        let ann = try #require(try QAuthor.findFirst(matching: #Predicate { $0.name == "Ann" }, in: context))
        let before = try QBook.count(matching: #Predicate { $0.author?.name == "Ann" }, in: context)
        orphan.author = ann
        #expect(try QBook.count(matching: #Predicate { $0.author?.name == "Ann" }, in: context) == before)
        try context.save()
        #expect(try QBook.count(matching: #Predicate { $0.author?.name == "Ann" }, in: context) == before + 1)
    }

    /// Sorting by a name through to-one relationships orders like Swift's `<`
    /// on the value (canonically equivalent texts together), `nil` first
    /// ascending and last descending.
    @Test func sortingByANameThroughToOnes() throws {
        let context = try seededLibrary.get().newContext()
        let books = try QBook.findAll(in: context)
        func precedes(_ a: String?, _ b: String?) -> Bool {
            switch (a, b) {
            case (nil, nil): false
            case (nil, _): true
            case (_, nil): false
            case (let a?, let b?): a < b
            }
        }
        let byName = books.map { $0.author?.name }.sorted(by: precedes)
        let fetched = try QBook.findAll(sortedBy: "author.name", in: context).map { $0.author?.name }
        #expect(fetched == byName)
        let descending = try QBook.findAll(sortedBy: "author.name", ascending: false, in: context).map { $0.author?.name }
        #expect(descending == Array(byName.reversed()))
        let byCity = books.map { $0.author?.publisher?.city }.sorted(by: precedes)
        #expect(try QBook.findAll(sortedBy: "author.publisher.city", in: context).map { $0.author?.publisher?.city } == byCity)
        // Its own stack: the shared one records the other tests' statements too.
        let own = try RelationshipQuerySeed.stack()
        let ownContext = own.newContext()
        let (_, statements) = try own.recordingSQL {
            try QBook.findAll(sortedBy: "author.publisher.name, title", in: ownContext)
        }
        #expect(statements.count == 1, "\(statements)")
    }

    /// `SortDescriptor(\Book.author?.name)` (Docs/Relationships.md): the SQL order is
    /// `sorted(using:)`'s over the same objects, ties kept in row order, at
    /// any depth and in either order, in one statement.
    @Test func sortDescriptorsThroughToOnesMatchSwift() throws {
        let context = try seededLibrary.get().newContext()
        let books = try QBook.findAll(in: context)
        let cases: [(String, [SortDescriptor<QBook>])] = [
            ("author.name", [SortDescriptor(\QBook.author?.name)]),
            ("author.name reverse", [SortDescriptor(\QBook.author?.name, order: .reverse)]),
            ("author.age, title", [SortDescriptor(\QBook.author?.age), SortDescriptor(\QBook.title)]),
            ("author.nickname reverse", [SortDescriptor(\QBook.author?.nickname, order: .reverse)]),
            ("author.publisher.city", [SortDescriptor(\QBook.author?.publisher?.city)]),
            ("author.publisher.name reverse, pages", [SortDescriptor(\QBook.author?.publisher?.name, order: .reverse), SortDescriptor(\QBook.pages)]),
        ]
        for (name, descriptors) in cases {
            let expected = ids(books.sorted(using: descriptors))
            #expect(ids(try QBook.findAll(sortedBy: descriptors, in: context)) == expected, "\(name)")
            let request = FetchRequest<QBook>(sortBy: descriptors, fetchLimit: 4, fetchOffset: 2)
            #expect(ids(try context.fetch(request)) == Array(expected.dropFirst(2).prefix(4)), "\(name)")
        }
        let publishers = try QAuthor.findAll(in: context)
        let byPublisher = [SortDescriptor(\QAuthor.publisher?.name), SortDescriptor(\QAuthor.name)]
        #expect(ids(try QAuthor.findAll(sortedBy: byPublisher, in: context)) == ids(publishers.sorted(using: byPublisher)))
        // Its own stack: the shared one records the other tests' statements too.
        let own = try RelationshipQuerySeed.stack()
        let ownContext = own.newContext()
        let (_, statements) = try own.recordingSQL {
            try QBook.findAll(sortedBy: [SortDescriptor(\QBook.author?.publisher?.name), SortDescriptor(\QBook.title)], in: ownContext)
        }
        #expect(statements.count == 1, "\(statements)")
    }

    @Test func sortingByAMissingRelationshipNamesIt() throws {
        let context = try seededLibrary.get().newContext()
        for (path, expected) in [("writer.name", "'writer'"), ("author.nope", "'nope'"), ("tags.label", "'tags'")] {
            #expect {
                try QBook.findAll(sortedBy: path, in: context)
            } throws: { error in
                guard let error = error as? LiteRecordError else { return false }
                return error.kind == .unknownAttribute && error.message.contains(expected)
            }
        }
    }
}

/// The SQL shapes the documentation shows.
@Suite struct RelationshipPredicateSQLTests {
    let model: Model

    init() throws {
        model = try Model(entities: RelationshipQuerySeed.entities)
    }

    private func sql<T: Entity>(_ predicate: Predicate<T>) throws -> String {
        try #require(try PredicateTranslator.condition(predicate, model: model).sql)
    }

    /// A to-one is read by primary key, once per hop, with no CASE around it
    /// (a scalar subquery is already NULL for a nil reference).
    @Test func toOneChainsAreNestedScalarSubqueries() throws {
        #expect(
            try sql(#Predicate<QBook> { $0.author?.name == "Ann" }) == """
                ((SELECT literecord_r1."name" FROM "QAuthor" AS literecord_r1 WHERE literecord_r1."Z_PK" = "QBook"."author") \
                COLLATE literecord_swift IS ?)
                """)
        #expect(
            try sql(#Predicate<QBook> { $0.author?.publisher?.name == "Ann" }) == """
                ((SELECT literecord_r2."name" FROM "QPublisher" AS literecord_r2 WHERE literecord_r2."Z_PK" = \
                (SELECT literecord_r1."publisher" FROM "QAuthor" AS literecord_r1 WHERE literecord_r1."Z_PK" = "QBook"."author")) \
                COLLATE literecord_swift IS ?)
                """)
        #expect(try sql(#Predicate<QBook> { $0.author == nil }) == #"("QBook"."author" IS NULL)"#)
    }

    /// A to-many is an EXISTS over the destination (through the join table for
    /// a many-to-many) with the closure's object under its own alias.
    @Test func toManysAreExistsSubqueries() throws {
        #expect(
            try sql(#Predicate<QAuthor> { $0.books.contains { $0.title == "Dune" } }) == """
                (EXISTS (SELECT 1 FROM "QBook" AS literecord_r1 WHERE literecord_r1."author" = "QAuthor"."Z_PK" \
                AND ((literecord_r1."title" COLLATE literecord_swift = ?))))
                """)
        #expect(
            try sql(#Predicate<QBook> { $0.tags.allSatisfy { $0.label != "x" } }) == """
                (NOT EXISTS (SELECT 1 FROM "QBook_tags" AS literecord_r2 JOIN "QTag" AS literecord_r1 \
                ON literecord_r1."Z_PK" = literecord_r2."QTag" WHERE literecord_r2."QBook" = "QBook"."Z_PK" \
                AND (NOT (literecord_r1."label" COLLATE literecord_swift <> ?))))
                """)
        #expect(
            try sql(#Predicate<QBook> { $0.tags.isEmpty }) == """
                (NOT EXISTS (SELECT 1 FROM "QBook_tags" AS literecord_r2 WHERE literecord_r2."QBook" = "QBook"."Z_PK"))
                """)
    }
}

extension RAuthor: Equatable {}

/// Hand-written entities (no macro) query through relationships the same way;
/// declaring `Equatable` is what lets `$0.author == nil` compile.
@Suite struct HandWrittenRelationshipPredicateTests {
    @Test func nilChecksAndManyToManyOnHandWrittenEntities() throws {
        let stack = try RecordStack(inMemoryWith: relationshipEntities)
        let context = stack.newContext()
        let ann = RAuthor("Ann")
        context.insert(ann)
        let sf = RTag("sf")
        context.insert(sf)
        for index in 0..<6 {
            let book = RBook("B\(index)")
            context.insert(book)
            if index % 2 == 0 { book.author = ann }
            if index % 3 == 0 { book.tags.append(sf) }
        }
        try context.save()
        let fresh = stack.newContext()
        let books = try RBook.findAll(in: fresh)
        for predicate in [
            #Predicate<RBook> { $0.author == nil },
            #Predicate<RBook> { $0.author != nil && $0.tags.isEmpty },
            #Predicate<RBook> { $0.tags.count == 1 || $0.author?.name == "Bob" },
        ] {
            let expected = try books.filter(predicate).map(\.title)
            #expect(try RBook.findAll(matching: predicate, in: fresh).map(\.title) == expected)
        }
        #expect(try RAuthor.count(matching: #Predicate { $0.books.count == 3 }, in: fresh) == 1)
        #expect(try RAuthor.count(matching: #Predicate { $0.books.allSatisfy { $0.author != nil } }, in: fresh) == 1)
        // RTag lists no key paths (no attributeIndex(for:)): refused, named.
        #expect {
            try RBook.findAll(matching: #Predicate { $0.tags.contains { $0.label == "sf" } }, in: fresh)
        } throws: { error in
            (error as? LiteRecordError)?.kind == .unsupportedPredicate
                && (error as? LiteRecordError)?.message.contains("\\RTag.label") == true
        }
    }
}
