import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// `@Relationship` properties: the whole expansion, and each misuse's diagnostic.
@Suite struct RelationshipMacroTests {
    @Test func toOneAndToManyExpansion() {
        assertExpansion(
            """
            @Entity
            final class Book {
                var title = ""
                @Relationship var author: Author?
                @Relationship(deleteRule: .cascade, inverse: \\Tag.books, originalName: "labels", minimumCount: 1, maximumCount: 5)
                var tags: [Tag] = []
                init() {}
            }
            """,
            expandedSource: """
            final class Book {
                var title {
                    @storageRestrictions(initializes: _title)
                    init(initialValue) {
                        _title = initialValue
                    }
                    get {
                        observationAccess(\\.title, member: .attribute(0))
                        return _title
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_title, newValue) else {
                            return
                        }
                        withObservedMutation(of: \\.title, member: .attribute(0)) {
                            _title = newValue
                        }
                        didChangeAttribute(at: 0)
                    }
                }

                private var _title: String
                var author: Author? {
                    @storageRestrictions(initializes: _author)
                    init(initialValue) {
                        _author = initialValue
                    }
                    get {
                        let value = relatedObject(at: 0, seed: &_author)
                        observationAccess(\\.author, member: .relationship(0))
                        return value
                    }
                    set {
                        _author = nil
                        setRelatedObject(newValue, at: 0)
                    }
                }

                private var _author: Author??
                var tags: [Tag] {
                    @storageRestrictions(initializes: _tags)
                    init(initialValue) {
                        _tags = initialValue
                    }
                    get {
                        let value = relatedObjects(at: 1, seed: &_tags)
                        observationAccess(\\.tags, member: .relationship(1))
                        return value
                    }
                    set {
                        _tags = nil
                        setRelatedObjects(newValue, at: 1)
                    }
                }

                private var _tags: [Tag]?
                init() {}

                @exclusivity(unchecked) var recordState = LiteRecord.RecordState()

                static let entityName = "Book"

                static let tracksChanges = true

                static let attributes: [LiteRecord.AttributeDescription] = [
                    LiteRecord.AttributeDescription(
                        "title",
                        type: LiteRecord.AttributeCoding.type(of: String.self),
                        defaultValue: {
                            try LiteRecord.AttributeCoding.encode("")
                        }
                    ),
                ]

                init(row: LiteRecord.Row) throws {
                    _title = try row.decode(String.self, at: 0)
                }

                func encodeAttribute(at index: Int) throws -> LiteRecord.SQLValue {
                    switch index {
                    case 0:
                        try LiteRecord.AttributeCoding.encode(_title)
                    default:
                        .null
                    }
                }

                func decodeAttribute(at index: Int, from row: LiteRecord.Row) throws {
                    switch index {
                    case 0:
                        let value = try row.decode(String.self, at: 0)
                        storeObserved(\\Book.title, member: .attribute(0), LiteRecord.AttributeCoding.isChange(_title, value)) {
                            _title = value
                        }
                    default:
                        break
                    }
                }

                static func attributeIndex(for keyPath: PartialKeyPath<Book>) -> Int? {
                    switch keyPath {
                    case \\Book.title:
                        0
                    default:
                        nil
                    }
                }

                static func memberKeyPath(named name: String, throughOptional: Bool) -> AnyKeyPath? {
                    switch (name, throughOptional) {
                    case ("author", false):
                        \\Book.author
                    case ("title", true):
                        \\Book?.?.title
                    case ("author", true):
                        \\Book?.?.author
                    default:
                        nil
                    }
                }

                static let relationships: [LiteRecord.RelationshipDescription] = [
                    LiteRecord.RelationshipDescription(
                        "author",
                        toOne: Author.self
                    ),
                    LiteRecord.RelationshipDescription(
                        "tags",
                        toMany: Tag.self,
                        inverse: "books",
                        deleteRule: .cascade,
                        originalName: "labels",
                        minimumCount: 1,
                        maximumCount: 5
                    ),
                ]

                static func relationshipIndex(for keyPath: PartialKeyPath<Book>) -> Int? {
                    switch keyPath {
                    case \\Book.author:
                        0
                    case \\Book.tags:
                        1
                    default:
                        nil
                    }
                }

                func settleRelationships() {
                    if _author != nil {
                        _ = author
                    }
                    if _tags != nil {
                        _ = tags
                    }
                }

                func observeRelationshipMutation(at index: Int, _ mutation: () -> Void) {
                    switch index {
                    case 0:
                        withObservedMutation(of: \\Book.author, member: .relationship(0), mutation)
                    case 1:
                        withObservedMutation(of: \\Book.tags, member: .relationship(1), mutation)
                    default:
                        mutation()
                    }
                }
            }

            nonisolated extension Book: LiteRecord.Entity, LiteRecord.DefaultInitializable, Swift.Equatable, LiteRecord.ObservableRecord {
            }
            """)
    }

    @Test func aToOneMustBeOptional() {
        assertExpansion(
            """
            @Entity
            final class Book {
                @Relationship var author: Author
            }
            """,
            expandedSource: """
            final class Book {
                var author: Author
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "to-one relationship 'author' must be optional ('Author?'): a record may have no related object, and a new object starts without one",
                    line: 3, column: 31, fixIts: [FixItSpec(message: "Declare it as 'Author?'")]),
            ],
            applyFixIts: ["Declare it as 'Author?'"],
            fixedSource: """
            @Entity
            final class Book {
                @Relationship var author: Author?
            }
            """)
    }

    @Test func anInverseMustBelongToTheDestination() {
        assertExpansion(
            """
            @Entity
            final class Author {
                @Relationship(inverse: \\Tag.books) var books: [Book] = []
            }
            """,
            expandedSource: """
            final class Author {
                var books: [Book] = []
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "the inverse '\\Tag.books' of relationship 'books' must be a relationship of its destination 'Book'",
                    line: 3, column: 28),
            ])
    }

    @Test func aRelationshipStartsEmpty() {
        assertExpansion(
            """
            @Entity
            final class Author {
                @Relationship var books: [Book] = [Book()]
            }
            """,
            expandedSource: """
            final class Author {
                var books: [Book] = [Book()]
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "relationship 'books' can only start empty ('[]'); assign related objects after creating the object",
                    line: 3, column: 39),
            ])
    }

    @Test func countsApplyToToManysOnly() {
        assertExpansion(
            """
            @Entity
            final class Book {
                @Relationship(maximumCount: 2) var author: Author?
            }
            """,
            expandedSource: """
            final class Book {
                var author: Author?
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'maximumCount:' applies to to-many relationships only, and 'author' is a to-one",
                    line: 3, column: 33),
            ])
    }

    @Test func aRelationshipTypeIsOptionalOrAnArrayOfAnEntity() {
        assertExpansion(
            """
            @Entity
            final class Book {
                @Relationship var authors: Set<Author> = []
            }
            """,
            expandedSource: """
            final class Book {
                var authors: Set<Author> = []
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "relationship 'authors' has type 'Set<Author>'; a relationship is 'Destination?' (to-one) or '[Destination]' (to-many) of another '@Entity' class",
                    line: 3, column: 32),
            ])
    }

    /// Docs/Relationships.md's `Book`: `author` has no `@Relationship`, so the macro
    /// cannot tell it from a column and routes it through
    /// `LiteRecord.EntityMember`; `tags` and `title` expand as before.
    @Test func aPropertyWithoutTheMarkIsLeftToTheCompiler() {
        assertExpansion(
            """
            @Entity
            final class Book {
                var title = ""
                var author: Author?
                @Relationship(deleteRule: .nullify) var tags: [Tag] = []
                init() {}
            }
            """,
            expandedSource: """
            final class Book {
                var title {
                    @storageRestrictions(initializes: _title)
                    init(initialValue) {
                        _title = initialValue
                    }
                    get {
                        observationAccess(\\.title, member: .attribute(0))
                        return _title
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_title, newValue) else {
                            return
                        }
                        withObservedMutation(of: \\.title, member: .attribute(0)) {
                            _title = newValue
                        }
                        didChangeAttribute(at: 0)
                    }
                }

                private var _title: String
                var author: Author? {
                    @storageRestrictions(initializes: _author)
                    init(initialValue) {
                        _author = initialValue
                    }
                    get {
                        let value = relatedMember(LiteRecord.EntityMember.takePending(&_author), relationship: 1) ?? _author
                        observationAccess(\\.author, member: LiteRecord.EntityMember.relationshipCount(Author?.self) == 1 ? .relationship(1) : .attribute(1))
                        return value
                    }
                    set {
                        if LiteRecord.EntityMember.relationshipCount(Author?.self) == 1 {
                            _ = LiteRecord.EntityMember.takePending(&_author)
                            setRelatedMember(newValue, relationship: 1)
                            return
                        }
                        guard LiteRecord.AttributeCoding.isChange(_author, newValue) else {
                            return
                        }
                        withObservedMutation(of: \\.author, member: .attribute(1)) {
                            _author = newValue
                        }
                        didChangeAttribute(at: 1)
                    }
                }

                private var _author: Optional<Author>
                var tags: [Tag] {
                    @storageRestrictions(initializes: _tags)
                    init(initialValue) {
                        _tags = initialValue
                    }
                    get {
                        let value = relatedObjects(at: 0, seed: &_tags)
                        observationAccess(\\.tags, member: .relationship(0))
                        return value
                    }
                    set {
                        _tags = nil
                        setRelatedObjects(newValue, at: 0)
                    }
                }

                private var _tags: [Tag]?
                init() {}

                @exclusivity(unchecked) var recordState = LiteRecord.RecordState()

                static let entityName = "Book"

                static let tracksChanges = true

                static let attributes: [LiteRecord.AttributeDescription] = [
                    LiteRecord.AttributeDescription(
                        "title",
                        type: LiteRecord.AttributeCoding.type(of: String.self),
                        defaultValue: {
                            try LiteRecord.AttributeCoding.encode("")
                        }
                    ),
                ] + [
                    LiteRecord.EntityMember.attribute("author", Author?.self),
                ].compactMap {
                    $0
                }

                init(row: LiteRecord.Row) throws {
                    _title = try row.decode(String.self, at: 0)
                    _author = try LiteRecord.EntityMember.decode(Author?.self, from: row, at: 1)
                }

                func encodeAttribute(at index: Int) throws -> LiteRecord.SQLValue {
                    switch index {
                    case 0:
                        try LiteRecord.AttributeCoding.encode(_title)
                    case 1 where LiteRecord.EntityMember.attributeCount(Author?.self) == 1:
                        try LiteRecord.EntityMember.encode(_author)
                    default:
                        .null
                    }
                }

                func decodeAttribute(at index: Int, from row: LiteRecord.Row) throws {
                    switch index {
                    case 0:
                        let value = try row.decode(String.self, at: 0)
                        storeObserved(\\Book.title, member: .attribute(0), LiteRecord.AttributeCoding.isChange(_title, value)) {
                            _title = value
                        }
                    case 1 where LiteRecord.EntityMember.attributeCount(Author?.self) == 1:
                        let value = try LiteRecord.EntityMember.decode(Author?.self, from: row, at: 1)
                        storeObserved(\\Book.author, member: .attribute(1), LiteRecord.AttributeCoding.isChange(_author, value)) {
                            _author = value
                        }
                    default:
                        break
                    }
                }

                static func attributeIndex(for keyPath: PartialKeyPath<Book>) -> Int? {
                    switch keyPath {
                    case \\Book.title:
                        0
                    case \\Book.author where LiteRecord.EntityMember.attributeCount(Author?.self) == 1:
                        1
                    default:
                        nil
                    }
                }

                static func memberKeyPath(named name: String, throughOptional: Bool) -> AnyKeyPath? {
                    switch (name, throughOptional) {
                    case ("title", true):
                        \\Book?.?.title
                    case ("author", false) where LiteRecord.EntityMember.relationshipCount(Author?.self) == 1:
                        \\Book.author
                    case ("author", true):
                        \\Book?.?.author
                    default:
                        nil
                    }
                }

                static let relationships: [LiteRecord.RelationshipDescription] = [
                    LiteRecord.RelationshipDescription(
                        "tags",
                        toMany: Tag.self,
                        deleteRule: .nullify
                    ),
                ] + [
                    LiteRecord.EntityMember.relationship("author", Author?.self),
                ].compactMap {
                    $0
                }

                static func relationshipIndex(for keyPath: PartialKeyPath<Book>) -> Int? {
                    switch keyPath {
                    case \\Book.tags:
                        0
                    case \\Book.author where LiteRecord.EntityMember.relationshipCount(Author?.self) == 1:
                        1
                    default:
                        nil
                    }
                }

                func settleRelationships() {
                    if _tags != nil {
                        _ = tags
                    }
                    settleMember(LiteRecord.EntityMember.takePending(&_author), relationship: 1)
                }

                func observeRelationshipMutation(at index: Int, _ mutation: () -> Void) {
                    switch index {
                    case 0:
                        withObservedMutation(of: \\Book.tags, member: .relationship(0), mutation)
                    case 1 where LiteRecord.EntityMember.relationshipCount(Author?.self) == 1:
                        withObservedMutation(of: \\Book.author, member: .relationship(1), mutation)
                    default:
                        mutation()
                    }
                }
            }

            nonisolated extension Book: LiteRecord.Entity, LiteRecord.DefaultInitializable, Swift.Equatable, LiteRecord.ObservableRecord {
            }
            """)
    }
}
