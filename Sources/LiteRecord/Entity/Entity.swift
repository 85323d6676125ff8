/// A class whose objects are stored as rows of one table.
///
/// Usually you write `@Entity` on a `final class` and the macro implements
/// this protocol. It can also be implemented by hand; the core never depends
/// on the macro:
///
/// ```swift
/// final class Tag: Entity {
///     var recordState = RecordState()
///     var label = ""
///
///     static let attributes = [AttributeDescription("label", type: .string)]
///
///     init() {}
///     init(row: Row) throws { label = try row.decode(String.self, at: 0) }
///     func encodeAttribute(at index: Int) throws -> SQLValue { try AttributeCoding.encode(label) }
///     func decodeAttribute(at index: Int, from row: Row) throws { label = try row.decode(String.self, at: 0) }
/// }
/// ```
///
/// Attribute indexes are positions in ``attributes``: `init(row:)`,
/// ``encodeAttribute(at:)`` and ``decodeAttribute(at:from:)`` all use them.
///
/// Entity objects are not `Sendable`: they belong to the context that fetched
/// or inserted them. A predicate captures values, not objects, and a
/// background `write` finds a record by its ``RecordID``; the "Common compiler
/// errors" section of `Docs/GettingStarted.md` shows the messages these rules
/// produce and the fix for each.
public protocol Entity: AnyObject, SendableMetatype {
    /// The entity's name, which is also its table's name. Defaults to the class
    /// name without module prefix.
    static var entityName: String { get }
    /// The entity's name in the previous model version, for a migration.
    static var entityOriginalName: String? { get }
    /// The stored properties, in a fixed order.
    static var attributes: [AttributeDescription] { get }
    /// The relationships to other entities, in a fixed order; empty by default.
    /// Relationship indexes are positions in this list.
    static var relationships: [RelationshipDescription] { get }
    /// `true` when the entity's setters report changes through
    /// ``RecordState/attributeDidChange(at:)`` (the macro's accessors do); `false`
    /// makes a save compare each object against the values last read.
    static var tracksChanges: Bool { get }

    /// The context's bookkeeping for this object, stored in the object.
    /// Declare it as `var recordState = RecordState()` and never touch it.
    var recordState: RecordState { get set }

    /// Creates an object from a fetched row, without running the type's own
    /// initializers. Attribute `i` is at `row` index `i`.
    ///
    /// - Throws: when a stored value cannot become the property's type.
    init(row: Row) throws

    /// The stored form of the attribute at `index`.
    ///
    /// - Throws: ``LiteRecordError`` of kind `.validationFailed` when the value
    ///   cannot be stored exactly.
    func encodeAttribute(at index: Int) throws -> SQLValue

    /// Replaces the attribute at `index` with the value in `row` (used to refresh
    /// an object with newer data from the store).
    ///
    /// - Throws: ``LiteRecordError`` of kind `.decodingFailed` when the stored
    ///   value cannot become the property's type.
    func decodeAttribute(at index: Int, from row: Row) throws

    /// The attribute index a key path refers to, for queries and sorting.
    static func attributeIndex(for keyPath: PartialKeyPath<Self>) -> Int?

    /// The relationship index a key path refers to, for prefetching.
    static func relationshipIndex(for keyPath: PartialKeyPath<Self>) -> Int?

    /// A key path to one member, by its name in the model: for
    /// `throughOptional: false`, `\Self.member` of a to-one relationship; for
    /// `true`, `\Self?.?.member` of a stored attribute or a to-one
    /// relationship. Appended to each other, they rebuild a key path through
    /// relationships, which is how `SortDescriptor(\Book.author?.name)` is
    /// taken apart into the names `author.name`. `@Entity` generates it; the
    /// default knows no member, so such a sort is refused.
    ///
    /// ```swift
    /// static func memberKeyPath(named name: String, throughOptional: Bool) -> AnyKeyPath? {
    ///     switch (name, throughOptional) {
    ///     case ("author", false): \Book.author
    ///     case ("title", true): \Book?.?.title
    ///     case ("author", true): \Book?.?.author
    ///     default: nil
    ///     }
    /// }
    /// ```
    static func memberKeyPath(named name: String, throughOptional: Bool) -> AnyKeyPath?

    /// Applies relationship values an initializer assigned before the object
    /// was fully initialized (the `@Entity` macro keeps them aside). Called
    /// when the object is inserted; a hand-written entity has nothing to do.
    func settleRelationships()

    /// Runs `mutation`, a change of the relationship at `index` made without
    /// its setter (the inverse side of an assignment, a merge, a rollback),
    /// telling Observation observers of that property. `@Entity` generates
    /// it; the default runs `mutation` and tells no one.
    ///
    /// ```swift
    /// func observeRelationshipMutation(at index: Int, _ mutation: () -> Void) {
    ///     withObservedMutation(of: \.books, mutation)
    /// }
    /// ```
    func observeRelationshipMutation(at index: Int, _ mutation: () -> Void)

    /// Called once, when the object is inserted into a context.
    func awakeFromInsert()
    /// Called before the object is written by a save, or pushed to its
    /// parent by a child context's save: on inserted objects and on saved
    /// ones with changes (hand-written entities included), not on deleted
    /// ones. Runs before `validateForSave()`.
    ///
    /// A `willSave` may change its own object, and insert or change others:
    /// an object it inserts or changes gets its own `willSave` too, in rounds
    /// repeated until one touches nothing new (as in Core Data). Each object's
    /// `willSave` runs at most once per save, even when a later one changes
    /// it again; it is still written with that change.
    ///
    /// ```swift
    /// func willSave() { updatedAt = .now }
    /// ```
    ///
    /// It cannot throw; a save whose `willSave`s keep inserting or changing
    /// new objects for 100 rounds fails with a ``LiteRecordError`` of kind
    /// `.validationFailed`.
    func willSave()
    /// Called before the object is written by a save; throwing aborts the save
    /// with a ``LiteRecordError`` of kind `.validationFailed`.
    func validateForSave() throws

    /// The save hooks the entity implements (``willSave()``,
    /// ``validateForSave()``): Swift cannot tell at run time whether a class
    /// replaced a protocol's default, so the entity says so. Set-based
    /// writes that load no objects (`updateAll`) refuse an entity listing
    /// one. `@Entity` generates it when the class body declares `func
    /// willSave()` or `func validateForSave()`; a hand-written entity, or
    /// one whose hook is declared in an extension, states it itself.
    /// Empty by default.
    ///
    /// ```swift
    /// static var saveHooks: SaveHooks { [.willSave, .validateForSave] }
    /// ```
    static var saveHooks: SaveHooks { get }

    /// Called by an import (`importObject(from:in:)`) with the JSON object
    /// about to be imported into this object, before anything changes and
    /// before the element's values are read (only its unique key is, and,
    /// for a new object of an entity without `init()`, the values it is made
    /// from); returning `false` skips it (a new object is then not inserted).
    /// `true` by default.
    func shouldImport(_ data: [String: Any]) -> Bool
    /// Called by an import after ``shouldImport(_:)``, before the object's
    /// attributes and relationships are set from `data`. What it sets on this
    /// object is taken back if the import fails.
    func willImport(_ data: [String: Any])
    /// Called by an import once the object's attributes and relationships
    /// are set from `data`. What it sets on this object is taken back if the
    /// import fails.
    func didImport(_ data: [String: Any])
}

extension Entity {
    public static var entityName: String { String(describing: self) }
    public static var entityOriginalName: String? { nil }
    public static var tracksChanges: Bool { false }
    public static var relationships: [RelationshipDescription] { [] }
    public static func relationshipIndex(for keyPath: PartialKeyPath<Self>) -> Int? { nil }
    public static func memberKeyPath(named name: String, throughOptional: Bool) -> AnyKeyPath? { nil }
    public func settleRelationships() {}
    public func observeRelationshipMutation(at index: Int, _ mutation: () -> Void) { mutation() }
    public static func attributeIndex(for keyPath: PartialKeyPath<Self>) -> Int? { nil }
    public func awakeFromInsert() {}
    public func willSave() {}
    public func validateForSave() throws {}
    public static var saveHooks: SaveHooks { [] }
    public func shouldImport(_ data: [String: Any]) -> Bool { true }
    public func willImport(_ data: [String: Any]) {}
    public func didImport(_ data: [String: Any]) {}

    /// The record's identity once it has been saved; `nil` before that and after
    /// its deletion is saved.
    public var recordID: RecordID? {
        let state = recordState
        guard state.phase == .managed || state.phase == .deleted, let rowID = state.rowID else { return nil }
        return RecordID(entityName: Self.entityName, rowID: rowID)
    }

    /// The version of the stored row that this object's values are based on
    /// (the row's `Z_OPT`, which optimistic locking compares): 2 for a row
    /// just inserted, one more after every save that changed it. `nil` before
    /// the first save and after the deletion is saved.
    ///
    /// An HTTP service can send it as the `ETag` and compare `If-Match`
    /// against it inside `write {}`, where no other writer can move it:
    ///
    /// ```swift
    /// let etag = try await stack.write { context in
    ///     guard let note = try Note.find(rowID: id, in: context) else { throw NotFound() }
    ///     guard note.recordVersion == expected else { throw PreconditionFailed() }
    ///     note.title = newTitle
    ///     try context.save()
    ///     return note.recordVersion
    /// }
    /// ```
    ///
    /// An object with unsaved changes keeps the version those changes are
    /// based on until its save, which then checks it (see `Docs/Concurrency.md`).
    public var recordVersion: Int64? {
        let state = recordState
        guard state.phase == .managed || state.phase == .deleted, state.rowID != nil else { return nil }
        return state.version
    }

    /// The context this object is registered in, if any.
    public var context: RecordContext? {
        withState { $0.phase == .unmanaged ? nil : $0.context }
    }

    /// Reports a change of the attribute at `index` to the object's context.
    /// Generated setters call it after storing a different value.
    @inlinable
    public func didChangeAttribute(at index: Int) {
        if let context = recordState.attributeDidChange(at: index) {
            context.objectDidChange(self)
        }
    }
}
