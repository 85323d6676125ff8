import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// Every misuse of `@Entity`, `@Attribute` and `@Transient` gets one exact
/// diagnostic at the right place, with its fix-it where one exists. A
/// declaration with an error gets no generated members, so the expansion is
/// the source without the macro attributes.
@Suite struct EntityMacroDiagnosticsTests {
    // MARK: The declaration

    @Test func entityOnAStruct() {
        assertExpansion(
            """
            @Entity
            struct Person {
                var name = ""
            }
            """,
            expandedSource: """
            struct Person {
                var name = ""
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Entity' can only be applied to a final class, not to a struct",
                    line: 1, column: 1),
            ])
    }

    @Test func entityOnAnEnum() {
        assertExpansion(
            """
            @Entity
            enum Kind {
                case a
            }
            """,
            expandedSource: """
            enum Kind {
                case a
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Entity' can only be applied to a final class, not to an enum",
                    line: 1, column: 1),
            ])
    }

    @Test func entityOnAnActor() {
        assertExpansion(
            """
            @Entity
            actor Cache {
                var name = ""
            }
            """,
            expandedSource: """
            actor Cache {
                var name = ""
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Entity' can only be applied to a final class, not to an actor",
                    line: 1, column: 1),
            ])
    }

    @Test func entityOnANonFinalClass() {
        assertExpansion(
            """
            @Entity
            public class Person {
                var name = ""
            }
            @Entity class Tag {
                var label = ""
            }
            """,
            expandedSource: """
            public class Person {
                var name = ""
            }
            class Tag {
                var label = ""
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Entity' class 'Person' must be 'final'", line: 2, column: 8,
                    fixIts: [FixItSpec(message: "Add 'final'")]),
                DiagnosticSpec(
                    message: "'@Entity' class 'Tag' must be 'final'", line: 5, column: 9,
                    fixIts: [FixItSpec(message: "Add 'final'")]),
            ],
            applyFixIts: ["Add 'final'"],
            fixedSource: """
            @Entity
            public final class Person {
                var name = ""
            }
            @Entity final class Tag {
                var label = ""
            }
            """)
    }

    @Test func entityOnAGenericClass() {
        assertExpansion(
            """
            @Entity
            final class Box<Value> {
                var name = ""
            }
            """,
            expandedSource: """
            final class Box<Value> {
                var name = ""
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Entity' cannot be applied to the generic class 'Box'",
                    line: 2, column: 13),
            ])
    }

    @Test func entityNameThatIsNotAPlainLiteral() {
        assertExpansion(
            #"""
            @Entity(name: "P\(1)", originalName: prefix + "Person")
            final class Person {
                var name = ""
            }
            """#,
            expandedSource: """
            final class Person {
                var name = ""
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'name:' must be a plain string literal",
                    line: 1, column: 15),
                DiagnosticSpec(
                    message: "'originalName:' must be a plain string literal",
                    line: 1, column: 38),
            ])
    }

    @Test func emptyAndReservedEntityNames() {
        assertExpansion(
            """
            @Entity(name: "")
            final class Person {
                var name = ""
            }
            @Entity(name: "sqlite_master")
            final class Master {
                var name = ""
            }
            """,
            expandedSource: """
            final class Person {
                var name = ""
            }
            final class Master {
                var name = ""
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "the entity name must not be empty",
                    line: 1, column: 15),
                DiagnosticSpec(
                    message: "the entity name 'sqlite_master' is reserved: names starting with 'sqlite_' or 'literecord_' belong to SQLite and LiteRecord",
                    line: 5, column: 15),
            ])
    }

    // MARK: Stored properties

    @Test func storedLet() {
        assertExpansion(
            """
            @Entity
            final class Person {
                let id: UUID = UUID()
            }
            """,
            expandedSource: """
            final class Person {
                let id: UUID = UUID()
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "stored property 'id' must be a 'var': LiteRecord sets it when it reads a record",
                    line: 3, column: 5,
                    fixIts: [FixItSpec(message: "Replace 'let' with 'var'")]),
            ],
            applyFixIts: ["Replace 'let' with 'var'"],
            fixedSource: """
            @Entity
            final class Person {
                var id: UUID = UUID()
            }
            """)
    }

    @Test func storedPropertyWithoutAnInferableType() {
        assertExpansion(
            """
            @Entity
            final class Person {
                var score = compute()
                var createdAt = Date.now
            }
            """,
            expandedSource: """
            final class Person {
                var score = compute()
                var createdAt = Date.now
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "stored property 'score' needs a type annotation: '@Entity' cannot tell its type from the initial value",
                    line: 3, column: 9,
                    fixIts: [FixItSpec(message: "Add a type annotation")]),
                DiagnosticSpec(
                    message: "stored property 'createdAt' needs a type annotation: '@Entity' cannot tell its type from the initial value",
                    line: 4, column: 9,
                    fixIts: [FixItSpec(message: "Add the type annotation ': Date'")]),
            ],
            applyFixIts: ["Add a type annotation", "Add the type annotation ': Date'"],
            fixedSource: """
            @Entity
            final class Person {
                var score: <#Type#> = compute()
                var createdAt: Date = Date.now
            }
            """)
    }

    @Test func storedPropertiesOfTypesThatCannotBeStored() {
        assertExpansion(
            """
            @Entity
            final class Person {
                var onChange: () -> Void = {}
                var handler: (@Sendable (Int) -> Void)?
                var pair: (Int, String) = (0, "")
                var delegate: any Delegate
                var shape: some Shape
                var anything: Any = 0
                var kind: Any.Type = Int.self
                var both: Codable & Hashable
                var callbacks: [() -> Void] = []
            }
            """,
            expandedSource: """
            final class Person {
                var onChange: () -> Void = {}
                var handler: (@Sendable (Int) -> Void)?
                var pair: (Int, String) = (0, "")
                var delegate: any Delegate
                var shape: some Shape
                var anything: Any = 0
                var kind: Any.Type = Int.self
                var both: Codable & Hashable
                var callbacks: [() -> Void] = []
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "stored property 'onChange' has type '() -> Void', which LiteRecord cannot store (a function type); mark it '@Transient'",
                    line: 3, column: 19,
                    fixIts: [FixItSpec(message: "Mark it '@Transient'")]),
                DiagnosticSpec(
                    message: "stored property 'handler' has type '(@Sendable (Int) -> Void)?', which LiteRecord cannot store (a function type); mark it '@Transient'",
                    line: 4, column: 18,
                    fixIts: [FixItSpec(message: "Mark it '@Transient'")]),
                DiagnosticSpec(
                    message: "stored property 'pair' has type '(Int, String)', which LiteRecord cannot store (a tuple); mark it '@Transient'",
                    line: 5, column: 15,
                    fixIts: [FixItSpec(message: "Mark it '@Transient'")]),
                DiagnosticSpec(
                    message: "stored property 'delegate' has type 'any Delegate', which LiteRecord cannot store (an existential 'any' type); mark it '@Transient'",
                    line: 6, column: 19),
                DiagnosticSpec(
                    message: "stored property 'shape' has type 'some Shape', which LiteRecord cannot store (an opaque 'some' type); mark it '@Transient'",
                    line: 7, column: 16),
                DiagnosticSpec(
                    message: "stored property 'anything' has type 'Any', which LiteRecord cannot store (an existential type); mark it '@Transient'",
                    line: 8, column: 19,
                    fixIts: [FixItSpec(message: "Mark it '@Transient'")]),
                DiagnosticSpec(
                    message: "stored property 'kind' has type 'Any.Type', which LiteRecord cannot store (a metatype); mark it '@Transient'",
                    line: 9, column: 15,
                    fixIts: [FixItSpec(message: "Mark it '@Transient'")]),
                DiagnosticSpec(
                    message: "stored property 'both' has type 'Codable & Hashable', which LiteRecord cannot store (a protocol composition); mark it '@Transient'",
                    line: 10, column: 15),
                DiagnosticSpec(
                    message: "stored property 'callbacks' has type '[() -> Void]', which LiteRecord cannot store (it contains a function type); mark it '@Transient'",
                    line: 11, column: 20,
                    fixIts: [FixItSpec(message: "Mark it '@Transient'")]),
            ],
            applyFixIts: ["Mark it '@Transient'"],
            fixedSource: """
            @Entity
            final class Person {
                @Transient var onChange: () -> Void = {}
                @Transient var handler: (@Sendable (Int) -> Void)?
                @Transient var pair: (Int, String) = (0, "")
                var delegate: any Delegate
                var shape: some Shape
                @Transient var anything: Any = 0
                @Transient var kind: Any.Type = Int.self
                var both: Codable & Hashable
                @Transient var callbacks: [() -> Void] = []
            }
            """)
    }

    @Test func implicitlyUnwrappedAndNestedOptionals() {
        assertExpansion(
            """
            @Entity
            final class Person {
                var nickname: String!
                var middleName: String??
            }
            """,
            expandedSource: """
            final class Person {
                var nickname: String!
                var middleName: String??
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "stored property 'nickname' cannot be an implicitly unwrapped optional; declare it as 'String?'",
                    line: 3, column: 19,
                    fixIts: [FixItSpec(message: "Declare it as 'String?'")]),
                DiagnosticSpec(
                    message: "stored property 'middleName' has the nested optional type 'String??', which a NULL-able column cannot represent",
                    line: 4, column: 21),
            ],
            applyFixIts: ["Declare it as 'String?'"],
            fixedSource: """
            @Entity
            final class Person {
                var nickname: String?
                var middleName: String??
            }
            """)
    }

    @Test func reservedColumnNames() {
        assertExpansion(
            """
            @Entity
            final class Person {
                var rowid: Int = 0
                var Z_PK: Int = 0
                var oid: Int = 0
                var _rowid_: Int = 0
                var z_opt: Int = 0
            }
            """,
            expandedSource: """
            final class Person {
                var rowid: Int = 0
                var Z_PK: Int = 0
                var oid: Int = 0
                var _rowid_: Int = 0
                var z_opt: Int = 0
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'rowid' is a column name LiteRecord reserves (_rowid_, oid, rowid, z_opt, z_pk); rename the property",
                    line: 3, column: 9),
                DiagnosticSpec(
                    message: "'Z_PK' is a column name LiteRecord reserves (_rowid_, oid, rowid, z_opt, z_pk); rename the property",
                    line: 4, column: 9),
                DiagnosticSpec(
                    message: "'oid' is a column name LiteRecord reserves (_rowid_, oid, rowid, z_opt, z_pk); rename the property",
                    line: 5, column: 9),
                DiagnosticSpec(
                    message: "'_rowid_' is a column name LiteRecord reserves (_rowid_, oid, rowid, z_opt, z_pk); rename the property",
                    line: 6, column: 9),
                // The model's list: `Z_OPT` is every table's row version.
                DiagnosticSpec(
                    message: "'z_opt' is a column name LiteRecord reserves (_rowid_, oid, rowid, z_opt, z_pk); rename the property",
                    line: 7, column: 9),
            ])
    }

    @Test func namesOfProtocolMembers() {
        assertExpansion(
            """
            @Entity
            final class Person {
                var recordState: Int = 0
                var recordID: Int = 0
                var context: String = ""
            }
            """,
            expandedSource: """
            final class Person {
                var recordState: Int = 0
                var recordID: Int = 0
                var context: String = ""
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'recordState' clashes with the 'Entity' protocol's member 'recordState'; rename the property",
                    line: 3, column: 9),
                DiagnosticSpec(
                    message: "'recordID' clashes with the 'Entity' protocol's member 'recordID'; rename the property",
                    line: 4, column: 9),
                DiagnosticSpec(
                    message: "'context' clashes with the 'Entity' protocol's member 'context'; rename the property",
                    line: 5, column: 9),
            ])
    }

    @Test func namesThatDifferOnlyInCase() {
        assertExpansion(
            """
            @Entity
            final class Person {
                var name = ""
                var Name = ""
            }
            """,
            expandedSource: """
            final class Person {
                var name = ""
                var Name = ""
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "stored properties 'name' and 'Name' would share one column (SQLite column names ignore case); rename one",
                    line: 4, column: 9),
            ])
    }

    @Test func memberNamedLikeGeneratedStorage() {
        assertExpansion(
            """
            @Entity
            final class Person {
                var name = ""
                @Transient var _name = ""
            }
            """,
            expandedSource: """
            final class Person {
                var name = ""
                var _name = ""
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'_name' clashes with the storage '@Entity' generates for 'name'; rename it",
                    line: 4, column: 20),
            ])
    }

    @Test func unsupportedDeclarationForms() {
        assertExpansion(
            """
            @Entity
            final class Person {
                var first = "", last = ""
                var (x, y) = (0, 0)
                lazy var cache: [Int] = []
                weak var parent: Person?
                var name: String = "" {
                    didSet { print(name) }
                }
                #if DEBUG
                var debugInfo = ""
                #endif
            }
            """,
            expandedSource: """
            final class Person {
                var first = "", last = ""
                var (x, y) = (0, 0)
                lazy var cache: [Int] = []
                weak var parent: Person?
                var name: String = "" {
                    didSet { print(name) }
                }
                #if DEBUG
                var debugInfo = ""
                #endif
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "declare each stored property of an '@Entity' class with its own 'var'",
                    line: 3, column: 5),
                DiagnosticSpec(
                    message: "'@Entity' supports stored properties with a plain name only",
                    line: 4, column: 9),
                DiagnosticSpec(
                    message: "lazy property 'cache' cannot be stored; mark it '@Transient'",
                    line: 5, column: 5,
                    fixIts: [FixItSpec(message: "Mark it '@Transient'")]),
                DiagnosticSpec(
                    message: "'weak' property 'parent' cannot be stored; mark it '@Transient'",
                    line: 6, column: 5,
                    fixIts: [FixItSpec(message: "Mark it '@Transient'")]),
                DiagnosticSpec(
                    message: "stored property 'name' cannot have 'willSet' or 'didSet' observers, because '@Entity' generates its accessors; mark it '@Transient' or move the logic elsewhere",
                    line: 7, column: 5),
                DiagnosticSpec(
                    message: "'@Entity' does not support stored properties inside '#if'; declare them unconditionally",
                    line: 10, column: 5),
            ])
    }

    // MARK: @Attribute and @Transient

    @Test func attributeOnAComputedProperty() {
        assertExpansion(
            """
            final class Person {
                var name = ""
                @Attribute(.unique) var initials: String { String(name.prefix(1)) }
            }
            """,
            expandedSource: """
            final class Person {
                var name = ""
                var initials: String { String(name.prefix(1)) }
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Attribute' cannot be applied to the computed property 'initials'; only stored properties are columns",
                    line: 3, column: 5,
                    fixIts: [FixItSpec(message: "Remove '@Attribute'")]),
            ],
            applyFixIts: ["Remove '@Attribute'"],
            fixedSource: """
            final class Person {
                var name = ""
                var initials: String { String(name.prefix(1)) }
            }
            """)
    }

    @Test func attributeMisuse() {
        assertExpansion(
            """
            final class Person {
                @Attribute(.unique) static var count = 0
                @Attribute(.indexed) @Transient var scratch = 0
                @Attribute(.primary, originalName: oldName) var name = ""
                @Attribute func run() {}
            }
            """,
            expandedSource: """
            final class Person {
                static var count = 0
                var scratch = 0
                var name = ""
                func run() {}
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Attribute' cannot be applied to the static property 'count'; only instance properties are columns",
                    line: 2, column: 5,
                    fixIts: [FixItSpec(message: "Remove '@Attribute'")]),
                DiagnosticSpec(
                    message: "property 'scratch' cannot be both '@Attribute' and '@Transient'",
                    line: 3, column: 5,
                    fixIts: [FixItSpec(message: "Remove '@Attribute'")]),
                DiagnosticSpec(
                    message: "'.primary' is not an '@Attribute' option; write '.unique', '.indexed', '.searchable', '.searchable(weight:)' or '.preserveValueOnDeletion'",
                    line: 4, column: 16),
                DiagnosticSpec(
                    message: "'originalName:' must be a plain string literal",
                    line: 4, column: 40),
                DiagnosticSpec(
                    message: "'@Attribute' can only be applied to a stored property",
                    line: 5, column: 5),
            ],
            applyFixIts: ["Remove '@Attribute'"],
            fixedSource: """
            final class Person {
                static var count = 0
                @Transient var scratch = 0
                @Attribute(.primary, originalName: oldName) var name = ""
                @Attribute func run() {}
            }
            """)
    }

    @Test func transientMisuse() {
        assertExpansion(
            """
            final class Person {
                var name = ""
                @Transient var cache: [String: Int]
                @Transient var label: String { name }
            }
            """,
            expandedSource: """
            final class Person {
                var name = ""
                var cache: [String: Int]
                var label: String { name }
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Transient' property 'cache' needs a default value: objects read from the store start with it",
                    line: 3, column: 20,
                    fixIts: [FixItSpec(message: "Add a default value")]),
                DiagnosticSpec(
                    message: "'@Transient' has no effect on the computed property 'label'",
                    line: 4, column: 5, severity: .warning,
                    fixIts: [FixItSpec(message: "Remove '@Transient'")]),
            ],
            applyFixIts: ["Add a default value", "Remove '@Transient'"],
            fixedSource: """
            final class Person {
                var name = ""
                @Transient var cache: [String: Int] = <#value#>
                var label: String { name }
            }
            """)
    }

    /// The one case nothing can decide: a column and a relationship at once.
    @Test func aPropertyCannotBeBothAnAttributeAndARelationship() {
        assertExpansion(
            """
            @Entity
            final class Book {
                @Attribute(.indexed) @Relationship var author: Author?
            }
            """,
            expandedSource: """
            final class Book {
                var author: Author?
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "property 'author' cannot be both '@Attribute' (a column) and '@Relationship'; keep the one it is",
                    line: 3, column: 44,
                    fixIts: [FixItSpec(message: "Remove '@Attribute'"), FixItSpec(message: "Remove '@Relationship'")]),
            ],
            applyFixIts: ["Remove '@Attribute'"],
            fixedSource: """
            @Entity
            final class Book {
                @Relationship var author: Author?
            }
            """)
    }

    /// A type that is both an entity and `Codable` (or anything else) is
    /// not ambiguous to the macro, which cannot see conformances: it reports
    /// nothing and leaves the choice to `EntityMember`'s overloads, where
    /// an entity always wins (see `TypeDeclaredRelationshipTests`).
    @Test func anOptionalOfAnUnknownTypeIsNoDiagnostic() {
        assertExpansion(
            """
            @Entity
            final class Shelf {
                var sticker: Sticker?
                var corners: Array<Point> = []
                var score: Swift.Optional<Foundation.Date>
            }
            """,
            expandedSource: """
            final class Shelf {
                var sticker: Sticker? {
                    @storageRestrictions(initializes: _sticker)
                    init(initialValue) {
                        _sticker = initialValue
                    }
                    get {
                        let value = relatedMember(LiteRecord.EntityMember.takePending(&_sticker), relationship: 0) ?? _sticker
                        observationAccess(\\.sticker, member: LiteRecord.EntityMember.relationshipCount(Sticker?.self) == 1 ? .relationship(0) : .attribute(1))
                        return value
                    }
                    set {
                        if LiteRecord.EntityMember.relationshipCount(Sticker?.self) == 1 {
                            _ = LiteRecord.EntityMember.takePending(&_sticker)
                            setRelatedMember(newValue, relationship: 0)
                            return
                        }
                        guard LiteRecord.AttributeCoding.isChange(_sticker, newValue) else {
                            return
                        }
                        withObservedMutation(of: \\.sticker, member: .attribute(1)) {
                            _sticker = newValue
                        }
                        didChangeAttribute(at: 1)
                    }
                }

                private var _sticker: Optional<Sticker>
                var corners: Array<Point> {
                    @storageRestrictions(initializes: _corners)
                    init(initialValue) {
                        _corners = initialValue
                    }
                    get {
                        let value = relatedMember(LiteRecord.EntityMember.takePending(&_corners), relationship: 0 + LiteRecord.EntityMember.relationshipCount(Sticker?.self)) ?? _corners
                        observationAccess(\\.corners, member: LiteRecord.EntityMember.relationshipCount(Array<Point>.self) == 1 ? .relationship(0 + LiteRecord.EntityMember.relationshipCount(Sticker?.self)) : .attribute(1 + LiteRecord.EntityMember.attributeCount(Sticker?.self)))
                        return value
                    }
                    set {
                        if LiteRecord.EntityMember.relationshipCount(Array<Point>.self) == 1 {
                            _ = LiteRecord.EntityMember.takePending(&_corners)
                            setRelatedMember(newValue, relationship: 0 + LiteRecord.EntityMember.relationshipCount(Sticker?.self))
                            return
                        }
                        guard LiteRecord.AttributeCoding.isChange(_corners, newValue) else {
                            return
                        }
                        withObservedMutation(of: \\.corners, member: .attribute(1 + LiteRecord.EntityMember.attributeCount(Sticker?.self))) {
                            _corners = newValue
                        }
                        didChangeAttribute(at: 1 + LiteRecord.EntityMember.attributeCount(Sticker?.self))
                    }
                }

                private var _corners: Array<Point>
                var score: Swift.Optional<Foundation.Date> {
                    @storageRestrictions(initializes: _score)
                    init(initialValue) {
                        _score = initialValue
                    }
                    get {
                        observationAccess(\\.score, member: .attribute(0))
                        return _score
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_score, newValue) else {
                            return
                        }
                        withObservedMutation(of: \\.score, member: .attribute(0)) {
                            _score = newValue
                        }
                        didChangeAttribute(at: 0)
                    }
                }

                private var _score: Swift.Optional<Foundation.Date>

                @exclusivity(unchecked) var recordState = LiteRecord.RecordState()

                static let entityName = "Shelf"

                static let tracksChanges = true

                static let attributes: [LiteRecord.AttributeDescription] = [
                    LiteRecord.AttributeDescription(
                        "score",
                        type: LiteRecord.AttributeCoding.type(of: Foundation.Date.self),
                        isOptional: true
                    ),
                ] + [
                    LiteRecord.EntityMember.attribute("sticker", Sticker?.self),
                    LiteRecord.EntityMember.attribute("corners", Array<Point>.self, defaultValue: {
                            [] as Array<Point>
                        }),
                ].compactMap {
                    $0
                }

                init(row: LiteRecord.Row) throws {
                    _score = try row.decodeOptional(Foundation.Date.self, at: 0)
                    _sticker = try LiteRecord.EntityMember.decode(Sticker?.self, from: row, at: 1)
                    _corners = try LiteRecord.EntityMember.decode(Array<Point>.self, from: row, at: 1 + LiteRecord.EntityMember.attributeCount(Sticker?.self))
                }

                func encodeAttribute(at index: Int) throws -> LiteRecord.SQLValue {
                    switch index {
                    case 0:
                        try LiteRecord.AttributeCoding.encodeOptional(_score)
                    case 1 where LiteRecord.EntityMember.attributeCount(Sticker?.self) == 1:
                        try LiteRecord.EntityMember.encode(_sticker)
                    case 1 + LiteRecord.EntityMember.attributeCount(Sticker?.self) where LiteRecord.EntityMember.attributeCount(Array<Point>.self) == 1:
                        try LiteRecord.EntityMember.encode(_corners)
                    default:
                        .null
                    }
                }

                func decodeAttribute(at index: Int, from row: LiteRecord.Row) throws {
                    switch index {
                    case 0:
                        let value = try row.decodeOptional(Foundation.Date.self, at: 0)
                        storeObserved(\\Shelf.score, member: .attribute(0), LiteRecord.AttributeCoding.isChange(_score, value)) {
                            _score = value
                        }
                    case 1 where LiteRecord.EntityMember.attributeCount(Sticker?.self) == 1:
                        let value = try LiteRecord.EntityMember.decode(Sticker?.self, from: row, at: 1)
                        storeObserved(\\Shelf.sticker, member: .attribute(1), LiteRecord.AttributeCoding.isChange(_sticker, value)) {
                            _sticker = value
                        }
                    case 1 + LiteRecord.EntityMember.attributeCount(Sticker?.self) where LiteRecord.EntityMember.attributeCount(Array<Point>.self) == 1:
                        let value = try LiteRecord.EntityMember.decode(Array<Point>.self, from: row, at: 1 + LiteRecord.EntityMember.attributeCount(Sticker?.self))
                        storeObserved(\\Shelf.corners, member: .attribute(1 + LiteRecord.EntityMember.attributeCount(Sticker?.self)), LiteRecord.AttributeCoding.isChange(_corners, value)) {
                            _corners = value
                        }
                    default:
                        break
                    }
                }

                static func attributeIndex(for keyPath: PartialKeyPath<Shelf>) -> Int? {
                    switch keyPath {
                    case \\Shelf.score:
                        0
                    case \\Shelf.sticker where LiteRecord.EntityMember.attributeCount(Sticker?.self) == 1:
                        1
                    case \\Shelf.corners where LiteRecord.EntityMember.attributeCount(Array<Point>.self) == 1:
                        1 + LiteRecord.EntityMember.attributeCount(Sticker?.self)
                    default:
                        nil
                    }
                }

                static func memberKeyPath(named name: String, throughOptional: Bool) -> AnyKeyPath? {
                    switch (name, throughOptional) {
                    case ("score", true):
                        \\Shelf?.?.score
                    case ("sticker", false) where LiteRecord.EntityMember.relationshipCount(Sticker?.self) == 1:
                        \\Shelf.sticker
                    case ("sticker", true):
                        \\Shelf?.?.sticker
                    case ("corners", true) where LiteRecord.EntityMember.attributeCount(Array<Point>.self) == 1:
                        \\Shelf?.?.corners
                    default:
                        nil
                    }
                }

                static let relationships: [LiteRecord.RelationshipDescription] = [] + [
                    LiteRecord.EntityMember.relationship("sticker", Sticker?.self),
                    LiteRecord.EntityMember.relationship("corners", Array<Point>.self),
                ].compactMap {
                    $0
                }

                static func relationshipIndex(for keyPath: PartialKeyPath<Shelf>) -> Int? {
                    switch keyPath {
                    case \\Shelf.sticker where LiteRecord.EntityMember.relationshipCount(Sticker?.self) == 1:
                        0
                    case \\Shelf.corners where LiteRecord.EntityMember.relationshipCount(Array<Point>.self) == 1:
                        0 + LiteRecord.EntityMember.relationshipCount(Sticker?.self)
                    default:
                        nil
                    }
                }

                func settleRelationships() {
                    settleMember(LiteRecord.EntityMember.takePending(&_sticker), relationship: 0)
                    settleMember(LiteRecord.EntityMember.takePending(&_corners), relationship: 0 + LiteRecord.EntityMember.relationshipCount(Sticker?.self))
                }

                func observeRelationshipMutation(at index: Int, _ mutation: () -> Void) {
                    switch index {
                    case 0 where LiteRecord.EntityMember.relationshipCount(Sticker?.self) == 1:
                        withObservedMutation(of: \\Shelf.sticker, member: .relationship(0), mutation)
                    case 0 + LiteRecord.EntityMember.relationshipCount(Sticker?.self) where LiteRecord.EntityMember.relationshipCount(Array<Point>.self) == 1:
                        withObservedMutation(of: \\Shelf.corners, member: .relationship(0 + LiteRecord.EntityMember.relationshipCount(Sticker?.self)), mutation)
                    default:
                        mutation()
                    }
                }
            }

            nonisolated extension Shelf: LiteRecord.Entity, Swift.Equatable, LiteRecord.ObservableRecord {
            }
            """)
    }
}
