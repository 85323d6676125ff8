/// One relationship of an entity: a reference to one object of another entity
/// (to-one) or to a list of them (to-many). The `@Entity` macro writes these for
/// `@Relationship` properties; a hand-written entity lists them in
/// ``Entity/relationships``.
///
/// ```swift
/// static let relationships = [
///     RelationshipDescription("author", toOne: Author.self, inverse: "books"),
/// ]
/// ```
///
/// In the store a to-one is a nullable `INTEGER` column named like the
/// relationship, `REFERENCES` the destination's table; a to-many whose inverse
/// is a to-one has no column; a to-many whose inverse is a to-many (or that
/// has no inverse) is a join table.
public struct RelationshipDescription: Sendable, CustomStringConvertible {
    /// What deleting an object does to the objects it is related to.
    ///
    /// ```swift
    /// @Relationship(deleteRule: .cascade) var books: [Book] = []
    /// ```
    public enum DeleteRule: String, Sendable, Codable, Hashable {
        /// The related objects stay; their reference to the deleted object is
        /// cleared (the default).
        case nullify
        /// The related objects are deleted too, through any depth.
        case cascade
        /// The save throws `.validationFailed` while related objects remain.
        case deny
        /// Nothing happens to the related objects. A reference left pointing at
        /// the deleted object makes the save throw `.constraintViolation`.
        case noAction
    }

    /// The property name; for a to-one also the column name.
    public let name: String
    /// The entity at the other end.
    public let destination: any Entity.Type
    /// Whether the relationship holds a list of objects.
    public let isToMany: Bool
    /// The name of the relationship of `destination` that points back; `nil`
    /// to let the model infer it (the one relationship of the destination that
    /// points back at this entity, when there is exactly one).
    public let inverse: String?
    /// What deleting an object does to the objects this relationship relates it to.
    public let deleteRule: DeleteRule
    /// The relationship's name in the previous model version, for a rename.
    public let originalName: String?
    /// For a to-many: the fewest objects a save accepts.
    public let minimumCount: Int?
    /// For a to-many: the most objects a save accepts.
    public let maximumCount: Int?

    /// A to-one relationship, stored as a column named `name`.
    ///
    /// ```swift
    /// RelationshipDescription("author", toOne: Author.self, inverse: "books")
    /// ```
    ///
    /// Mistakes (a destination missing from the model, an inverse that does
    /// not point back) are found when the model is built: setup throws
    /// `.invalidModel`.
    public init(
        _ name: String, toOne destination: any Entity.Type, inverse: String? = nil,
        deleteRule: DeleteRule = .nullify, originalName: String? = nil
    ) {
        self.name = name
        self.destination = destination
        self.isToMany = false
        self.inverse = inverse
        self.deleteRule = deleteRule
        self.originalName = originalName
        self.minimumCount = nil
        self.maximumCount = nil
    }

    /// A to-many relationship: the inverse's column when the inverse is a
    /// to-one, a join table otherwise.
    ///
    /// ```swift
    /// RelationshipDescription("books", toMany: Book.self, inverse: "author", deleteRule: .cascade)
    /// ```
    ///
    /// Mistakes are found when the model is built, as for ``init(_:toOne:inverse:deleteRule:originalName:)``.
    public init(
        _ name: String, toMany destination: any Entity.Type, inverse: String? = nil,
        deleteRule: DeleteRule = .nullify, originalName: String? = nil,
        minimumCount: Int? = nil, maximumCount: Int? = nil
    ) {
        self.name = name
        self.destination = destination
        self.isToMany = true
        self.inverse = inverse
        self.deleteRule = deleteRule
        self.originalName = originalName
        self.minimumCount = minimumCount
        self.maximumCount = maximumCount
    }

    /// `author -> Author?` or `books -> [Book]`.
    public var description: String {
        "\(name) -> \(isToMany ? "[\(destination.entityName)]" : "\(destination.entityName)?")"
    }
}
