import Foundation
import Testing
import LiteRecord

// Two versions of a small library: tags as a comma-separated attribute, and
// tags as a many-to-many relationship (join table `Book_tags`, columns
// `Book` and `Tag`).

@Entity(name: "Book") private final class ListBook {
    var title = ""
    var tagList = ""
    init() {}
    init(title: String, tagList: String) {
        self.title = title
        self.tagList = tagList
    }
}

@Entity(name: "Tag") private final class ListTag {
    var label = ""
    init() {}
    init(label: String) { self.label = label }
}

@Entity(name: "Book") private final class LinkedBook {
    var title = ""
    @Relationship var tags: [LinkedTag] = []
    init() {}
}

@Entity(name: "Tag") private final class LinkedTag {
    var label = ""
    @Relationship(inverse: \LinkedBook.tags) var books: [LinkedBook] = []
    init() {}
}

/// Custom `MigrationPlan` steps and join tables: a step sees the join table
/// of a new many-to-many (and can fill it), and still reads the join table
/// of one the new model drops.
@Suite struct MigrationJoinTableStepTests {
    let folder: TemporaryDirectory
    let url: URL

    init() throws {
        folder = try TemporaryDirectory()
        url = folder.file("library.sqlite")
    }

    private func writeListVersion() throws {
        let stack = try RecordStack(storeAt: url, entities: [ListBook.self, ListTag.self])
        let context = stack.newContext()
        context.insert(ListBook(title: "Dune", tagList: "sf,classic"))
        context.insert(ListBook(title: "Emma", tagList: "classic"))
        context.insert(ListBook(title: "Notes", tagList: ""))
        context.insert(ListTag(label: "classic"))
        try context.save()
        try stack.close()
    }

    /// Moves each book's comma-separated tags into `Book_tags`, creating the
    /// tags that do not exist yet.
    private static let linkTags = MigrationPlan()
        .step("tags-from-list") { db in
            var tags: [String: Int64] = [:]
            for row in try db.rows("SELECT Z_PK, label FROM Tag") {
                if case .integer(let id) = row[0], case .text(let label) = row[1] { tags[label] = id }
            }
            for row in try db.rows("SELECT Z_PK, tagList FROM Book") {
                guard case .integer(let book) = row[0], case .text(let list) = row[1] else { continue }
                for label in list.split(separator: ",").map(String.init) {
                    let tag: Int64
                    if let known = tags[label] {
                        tag = known
                    } else {
                        try db.execute("INSERT INTO Tag (label) VALUES (?)", arguments: [label])
                        guard case .integer(let id) = try db.rows("SELECT last_insert_rowid()").first?.first else { continue }
                        tag = id
                        tags[label] = id
                    }
                    try db.execute("INSERT INTO Book_tags (Book, Tag) VALUES (?, ?)", arguments: [book, tag])
                }
            }
        }
        .removeAttribute("tagList", of: "Book")

    @Test func aStepFillsTheJoinTableOfANewManyToMany() throws {
        try writeListVersion()
        let stack = try RecordStack(storeAt: url, entities: [LinkedBook.self, LinkedTag.self], migration: .plan(Self.linkTags))
        let report = try #require(stack.lastMigrationReport)
        #expect(report.createdTables == ["Book_tags"])
        #expect(report.customSteps == ["tags-from-list"])
        try stack.close()

        let reopened = try RecordStack(storeAt: url, entities: [LinkedBook.self, LinkedTag.self])
        let context = reopened.newContext()
        let books = try LinkedBook.findAll(sortedBy: "title", in: context)
        #expect(books.map(\.title) == ["Dune", "Emma", "Notes"])
        #expect(books.map { Set($0.tags.map(\.label)) } == [["sf", "classic"], ["classic"], []])
        let classic = try #require(try LinkedTag.findFirst(byAttribute: "label", withValue: "classic", in: context))
        #expect(Set(classic.books.map(\.title)) == ["Dune", "Emma"])
        #expect(try LinkedTag.count(in: context) == 2)
        try reopened.close()
    }

    @Test func aStepThatLinksMissingRecordsFailsTheMigrationAndLeavesTheStore() throws {
        try writeListVersion()
        let plan = MigrationPlan()
            .step("dangling-link") { db in try db.execute("INSERT INTO Book_tags (Book, Tag) VALUES (1, 999)") }
            .removeAttribute("tagList", of: "Book")
        let error = expectError(.migrationFailed) {
            try RecordStack(storeAt: url, entities: [LinkedBook.self, LinkedTag.self], migration: .plan(plan))
        }
        #expect(error?.message.contains("violates a foreign key") == true)
        // Still the list version, with its data.
        let stack = try RecordStack(storeAt: url, entities: [ListBook.self, ListTag.self])
        let books = try ListBook.findAll(sortedBy: "title", in: stack.newContext())
        #expect(books.map(\.tagList) == ["sf,classic", "classic", ""])
        try stack.close()
    }

    @Test func aStepReadsTheJoinTableOfADroppedManyToMany() throws {
        try writeListVersion()
        try RecordStack(storeAt: url, entities: [LinkedBook.self, LinkedTag.self], migration: .plan(Self.linkTags)).close()

        // Back to the list: the step reads `Book_tags` before it is dropped.
        let plan = MigrationPlan()
            .step("list-from-tags") { db in
                let rows = try db.rows(
                    "SELECT Book_tags.Book, group_concat(Tag.label, ',') FROM Book_tags JOIN Tag ON Tag.Z_PK = Book_tags.Tag GROUP BY Book_tags.Book")
                for row in rows {
                    guard case .integer(let book) = row[0], case .text(let list) = row[1] else { continue }
                    try db.execute("UPDATE Book SET tagList = ? WHERE Z_PK = ?", arguments: [list, book])
                }
            }
            .removeRelationship("tags", of: "Book")
        let stack = try RecordStack(storeAt: url, entities: [ListBook.self, ListTag.self], migration: .plan(plan))
        #expect(stack.lastMigrationReport?.droppedTables == ["Book_tags"])
        let books = try ListBook.findAll(sortedBy: "title", in: stack.newContext())
        #expect(books.map { Set($0.tagList.split(separator: ",").map(String.init)) } == [["sf", "classic"], ["classic"], []])
        try stack.close()
    }
}
