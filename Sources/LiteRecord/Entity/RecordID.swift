/// The identity of a saved record: its entity's name and its row id.
///
/// `RecordID`s are what crosses between contexts, tasks and actors; use
/// ``RecordContext/object(with:as:)`` or ``Entity/inContext(_:)`` to get the
/// record back as an object of another context.
///
/// ```swift
/// let id = try #require(person.recordID)
/// let same = try context.object(with: id, as: Person.self)
/// ```
public struct RecordID: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The entity's name (its table).
    public let entityName: String
    /// The row's primary key in the entity's table.
    public let rowID: Int64

    /// Creates the identity of row `rowID` of entity `entityName`, such as one
    /// decoded from a stored or transmitted ``RecordID``.
    public init(entityName: String, rowID: Int64) {
        self.entityName = entityName
        self.rowID = rowID
    }

    public var description: String { "\(entityName)/\(rowID)" }
}
