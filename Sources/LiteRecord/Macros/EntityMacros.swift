/// Makes a `final class` an ``Entity``: every stored property becomes a column
/// of the entity's table, and changes to it are tracked for the next save.
///
/// ```swift
/// @Entity
/// final class Person {
///     @Attribute(.unique) var identifier: UUID = UUID()
///     var name: String = ""
///     var age: Int = 0
///     var email: String?                                  // optional → NULL-able column
///     @Attribute(originalName: "created") var createdAt: Date = Date()
///     var tags: [String] = []                             // Codable value → JSON column
///     @Transient var scratch = 0                          // never stored
///
///     init() {}
///     init(name: String, age: Int) { self.name = name; self.age = age }
/// }
/// ```
///
/// The macro generates the ``Entity`` conformance: the attribute descriptions,
/// reading an object from a row without running your initializers, the key-path
/// map used by queries, and accessors that report changes (setting a property
/// to the value it already has changes nothing). When every stored property has
/// a default value and the class declares no initializer or an `init()`, the
/// class also becomes ``DefaultInitializable``, so `Person.create(in:)` works.
/// Unless the class declares its own, it also becomes `Equatable` by identity
/// (one context holds one object per record), which is what lets a predicate
/// test a relationship for `nil`: `#Predicate<Book> { $0.author != nil }`.
/// A `func willSave()` or `func validateForSave()` in the class body is
/// listed in ``Entity/saveHooks`` (one declared in an extension is not seen:
/// declare `saveHooks` yourself then).
/// The class is `Observable` (``ObservableRecord``): SwiftUI and
/// `withObservationTracking` see its properties change, by a setter or by a
/// merge (see `Docs/Observation.md`).
///
/// Stored property types: `Bool`, the integer types, `Double`, `Float`,
/// `String`, `Data`, `Date`, `UUID`, `URL`, `Decimal`, `RawRepresentable`s of
/// these, optionals of all of them, and any other `Codable` value (stored as
/// JSON text). A property without a type annotation needs a literal or a
/// `Type()` call as its initial value. A property of type `D?` or `[D]`
/// where `D` is another entity is a relationship (see
/// ``Relationship(deleteRule:inverse:originalName:minimumCount:maximumCount:)``);
/// the compiler tells it from a column by `D`'s conformances.
///
/// - Parameters:
///   - name: the entity's name and table name; defaults to the class name. Two
///     versions of a model class map to one entity by giving both the same name.
///   - originalName: the entity's name in the previous model version, so that
///     an automatic migration renames the table instead of replacing it.
@attached(
    member,
    names: named(recordState), named(entityName), named(entityOriginalName), named(tracksChanges), named(saveHooks),
    named(attributes), named(init), named(encodeAttribute), named(decodeAttribute), named(attributeIndex),
    named(relationships), named(relationshipIndex), named(memberKeyPath), named(settleRelationships),
    named(observeRelationshipMutation)
)
@attached(memberAttribute)
@attached(extension, conformances: Entity, DefaultInitializable, Equatable, ObservableRecord)
public macro Entity(name: String? = nil, originalName: String? = nil) =
    #externalMacro(module: "LiteRecordMacros", type: "EntityMacro")

/// Sets options of one stored property of an ``Entity(name:originalName:)`` class.
///
/// ```swift
/// @Attribute(.unique) var identifier: UUID = UUID()
/// @Attribute(.indexed) var name: String = ""
/// @Attribute(originalName: "created") var createdAt: Date = Date()
/// @Attribute(.unique, importKey: "id") var identifier = 0
/// @Attribute(importKey: "born", dateFormat: .iso8601) var birthday: Date?
/// @Attribute(.searchable) var body = ""
/// @Attribute(.searchable(weight: 3)) var title = ""
/// ```
///
/// - Parameters:
///   - options: `.unique` (a unique index: a save that would store a value
///     twice throws `.constraintViolation`; an import matches existing objects
///     by it), `.indexed` (an index for queries), and `.searchable` or
///     `.searchable(weight:)` (the text is in the entity's full-text index,
///     see `Entity.search(_:matching:sortBy:limit:offset:in:)`; `String` and
///     `String?` properties only; the weight, a number literal, ranks matches).
///   - originalName: the property's name in the previous model version, so that
///     an automatic migration renames the column instead of replacing it.
///   - importKey: where `importObject(from:in:)` finds the value: a key, or a
///     dotted key path into nested objects (`"address.city"`); the property
///     name by default. Not part of the schema: changing it needs no migration.
///   - dateFormat: how an import reads a `Date` from JSON (see
///     ``ImportDateFormat``); ``ImportDateFormat/automatic`` by default.
@attached(peer)
public macro Attribute(
    _ options: AttributeDescription.Options..., originalName: String? = nil,
    importKey: String? = nil, dateFormat: ImportDateFormat? = nil
) =
    #externalMacro(module: "LiteRecordMacros", type: "AttributeMacro")

/// Keeps a stored property of an ``Entity(name:originalName:)`` class out of
/// the store. It needs a default value, which it has again in every object
/// read from the store.
///
/// ```swift
/// @Transient var isExpanded = false
/// ```
@attached(peer)
public macro Transient() = #externalMacro(module: "LiteRecordMacros", type: "TransientMacro")

/// Generated by `@Entity` for each stored property: the change-tracking
/// accessors and their backing storage. Not meant to be written by hand.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_), prefixed(_coder_))
public macro _PersistedProperty(index: Int) =
    #externalMacro(module: "LiteRecordMacros", type: "PersistedPropertyMacro")

/// Sets the options of a relationship of an ``Entity(name:originalName:)``
/// class. A stored property whose type is `Destination?` (a to-one) or
/// `[Destination]` (a to-many), where `Destination` is another entity, is a
/// relationship without it; `@Relationship` is for its options, and makes
/// the property a relationship whatever else `Destination` conforms to.
///
/// ```swift
/// @Entity final class Author {
///     var name = ""
///     @Relationship(deleteRule: .cascade, inverse: \Book.author)
///     var books: [Book] = []
///     init() {}
/// }
///
/// @Entity final class Book {
///     var title = ""
///     var author: Author?          // a to-one, inverse of `Author.books`
///     init() {}
/// }
/// ```
///
/// Assigning either side updates the other in memory; reading one loads it
/// from the store on first access (see ``Entity/relatedObjects(at:as:)``).
///
/// - Parameters:
///   - deleteRule: what deleting the object does to the related objects
///     (`.nullify` by default).
///   - inverse: the destination's relationship pointing back; inferred when
///     the destination has exactly one relationship to this entity.
///   - originalName: the relationship's name in the previous model version.
///   - minimumCount: for a to-many, the fewest objects a save accepts.
///   - maximumCount: for a to-many, the most objects a save accepts.
@attached(peer)
public macro Relationship(
    deleteRule: RelationshipDescription.DeleteRule = .nullify,
    inverse: AnyKeyPath? = nil,
    originalName: String? = nil,
    minimumCount: Int? = nil,
    maximumCount: Int? = nil
) = #externalMacro(module: "LiteRecordMacros", type: "RelationshipMacro")

/// Generated by `@Entity` for each `@Relationship` property: accessors that
/// read and write the relationship through the object's context. Not meant
/// to be written by hand.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_))
public macro _RelationshipProperty(index: Int) =
    #externalMacro(module: "LiteRecordMacros", type: "RelationshipPropertyMacro")

/// Generated by `@Entity` for each stored property whose spelling does not
/// say whether it is a column or a relationship (`var author: Author?`,
/// `var books: [Book] = []`): accessors that let the compiler decide through
/// ``EntityMember``'s overloads. Not meant to be written by hand.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_))
public macro _InferredProperty(attribute: Int, relationship: Int) =
    #externalMacro(module: "LiteRecordMacros", type: "InferredPropertyMacro")
