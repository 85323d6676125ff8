import Foundation
import Testing
import LiteRecord

/// Adding an inverse moves where links are kept: a
/// many-to-many's join table is named `min(own, other)`, and a to-many
/// without an inverse keeps a join table that an inverse to-one replaces by
/// its column. The migration moves every link.
@Suite("Migration: an inverse added keeps every link")
struct MigrationInverseTests {
    @Test func anInverseAddedToAManyToManyMovesTheJoinTable() throws {
        let store = try TemporaryStore()
        defer { store.cleanUp() }
        do {
            let stack = try RecordStack(storeAt: store.url, entities: [OneSided.Student.self, OneSided.Course.self])
            let context = stack.newContext()
            let courses = ["Maths", "Art"].map { OneSided.Course(["title": .text($0)]) }
            let students = ["Ann", "Bob"].map { OneSided.Student(["name": .text($0)]) }
            for object in courses as [any Entity] + students { context.insert(object) }
            students[0].setRelatedObjects(courses, at: 0)
            students[1].setRelatedObjects([courses[1]], at: 0)
            try context.save()
            try stack.close()
        }
        let stack = try store.open([BothSides.Student.self, BothSides.Course.self])
        let report = try #require(stack.lastMigrationReport)
        #expect(report.actions.contains("moved the links of join table Student_courses to Course_students"))
        let context = stack.newContext()
        let students = try stack.all(BothSides.Student.self, in: context)
        #expect(
            students.map { Set($0.relatedObjects(at: 0, as: BothSides.Course.self).map { $0["title"] }) } == [
                [.text("Maths"), .text("Art")], [.text("Art")],
            ])
        let courses = try stack.all(BothSides.Course.self, in: context)
        #expect(courses.map { $0.relatedObjects(at: 0, as: BothSides.Student.self).count } == [1, 2])
        try stack.close()
        #expect(try store.inspect { try $0.tableExists("Student_courses") } == false)
    }

    private func writeAuthors(_ store: TemporaryStore, sharing: Bool) throws {
        let stack = try RecordStack(storeAt: store.url, entities: [Unowned.Author.self, Unowned.Book.self])
        let context = stack.newContext()
        let authors = ["Ann", "Bob"].map { Unowned.Author(["name": .text($0)]) }
        let books = ["Dune", "Emma", "Ulysses"].map { Unowned.Book(["title": .text($0)]) }
        for object in authors as [any Entity] + books { context.insert(object) }
        authors[0].setRelatedObjects(Array(books[0...1]), at: 0)
        authors[1].setRelatedObjects(sharing ? [books[1]] : [books[2]], at: 0)
        try context.save()
        try stack.close()
    }

    @Test func aToManyGainingAnInverseToOneFillsItsColumn() throws {
        let store = try TemporaryStore()
        defer { store.cleanUp() }
        try writeAuthors(store, sharing: false)
        let stack = try store.open([Owned.Author.self, Owned.Book.self])
        let context = stack.newContext()
        let books = try stack.all(Owned.Book.self, in: context)
        #expect(books.map { $0.relatedObject(at: 0, as: Owned.Author.self)?["name"] } == [.text("Ann"), .text("Ann"), .text("Bob")])
        let authors = try stack.all(Owned.Author.self, in: context)
        #expect(authors.map { $0.relatedObjects(at: 0, as: Owned.Book.self).count } == [2, 1])
        try stack.close()
        #expect(try store.inspect { try $0.tableExists("Author_books") } == false)
    }

    @Test func aBookInTwoAuthorsListsCannotGetOneAuthor() throws {
        let store = try TemporaryStore()
        defer { store.cleanUp() }
        try writeAuthors(store, sharing: true)
        let bytes = try store.bytes()
        let error = expectError(.migrationFailed) { try store.open([Owned.Author.self, Owned.Book.self]) }
        #expect(error?.message.contains("links record Book Z_PK = 2 to 2 Author records, and a to-one holds one") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("removeRelationship") == false)
        #expect(try store.bytes() == bytes)
    }
}

private enum OneSided {
    final class Student: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] { [attr("name", .string)] }
        static var relationships: [RelationshipDescription] { [RelationshipDescription("courses", toMany: Course.self)] }
    }

    final class Course: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] { [attr("title", .string)] }
    }
}

private enum BothSides {
    final class Student: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] { [attr("name", .string)] }
        static var relationships: [RelationshipDescription] {
            [RelationshipDescription("courses", toMany: Course.self, inverse: "students")]
        }
    }

    final class Course: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] { [attr("title", .string)] }
        static var relationships: [RelationshipDescription] {
            [RelationshipDescription("students", toMany: Student.self, inverse: "courses")]
        }
    }
}

private enum Unowned {
    final class Author: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] { [attr("name", .string)] }
        static var relationships: [RelationshipDescription] { [RelationshipDescription("books", toMany: Book.self)] }
    }

    final class Book: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] { [attr("title", .string)] }
    }
}

private enum Owned {
    final class Author: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] { [attr("name", .string)] }
        static var relationships: [RelationshipDescription] {
            [RelationshipDescription("books", toMany: Book.self, inverse: "author")]
        }
    }

    final class Book: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] { [attr("title", .string)] }
        static var relationships: [RelationshipDescription] {
            [RelationshipDescription("author", toOne: Author.self, inverse: "books")]
        }
    }
}
