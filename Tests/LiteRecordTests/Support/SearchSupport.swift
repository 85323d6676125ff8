import Foundation
@testable import LiteRecord

/// An entity with two searchable attributes (the title weighted 3), one
/// of them optional, and plain attributes to filter and sort by.
@Entity(name: "Article")
final class SearchArticle {
    @Attribute(.searchable(weight: 3)) var title = ""
    @Attribute(.searchable) var body: String?
    var views = 0
    var draft = false

    init() {}

    init(_ title: String, _ body: String? = nil, views: Int = 0, draft: Bool = false) {
        self.title = title
        self.body = body
        self.views = views
        self.draft = draft
    }
}

/// A blog whose posts go with it (`.cascade`): deleting a blog deletes
/// searchable rows through the delete rule.
@Entity(name: "Blog")
final class SearchBlog {
    var name = ""
    @Relationship(deleteRule: .cascade, inverse: \SearchPost.blog) var posts: [SearchPost] = []
    init() {}
    init(_ name: String) { self.name = name }
}

@Entity(name: "Post")
final class SearchPost {
    @Attribute(.searchable) var text = ""
    @Relationship var blog: SearchBlog?
    init() {}
    init(_ text: String) { self.text = text }
}

extension Connection {
    /// The row ids FTS5 itself returns for a raw MATCH, sorted.
    func searchRowIDs(_ entity: String, _ match: String) throws -> [Int64] {
        let fts = SQLIdentifier.quote(EntityDescription.searchTableName(table: entity))
        return try rows("SELECT rowid FROM \(fts) WHERE \(fts) MATCH ? ORDER BY rowid", [.text(match)]).compactMap(\.first?.integerValue)
    }
}

extension RecordStack {
    /// FTS5's `integrity-check` of `entity`'s index against its table:
    /// `nil` when they match, else SQLite's message.
    func searchIndexProblem(_ entity: String) throws -> String? {
        try store.withConnection("checking the full-text index") { connection in
            try connection.searchIndexProblem(EntityDescription.searchTableName(table: entity))
        }
    }

    /// The FTS5 tables and search triggers in the store, by name.
    func searchObjects() throws -> [String] {
        try store.withConnection("listing the full-text index") { connection in
            try connection.searchIndexObjects().map(\.name)
        }
    }
}
