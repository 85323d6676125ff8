import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// `@Entity` expansions, compared whole.
@Suite struct EntityMacroTests {
    @Test func representativeEntity() {
        assertExpansion(
            """
            @Entity
            final class Person {
                @Attribute(.unique) var identifier: UUID = UUID()
                var name = ""
                var age: Int = 0
                var email: String?
                @Attribute(originalName: "created") var createdAt: Date = .now
                var mood: Mood = .calm
                var tags: [String] = []
                @Transient var scratch = 0
                var initials: String { String(name.prefix(1)) }

                init() {}
                init(name: String, age: Int) {
                    self.name = name
                    self.age = age
                }

                func awakeFromInsert() { identifier = UUID() }
            }
            """,
            expandedSource: #"""
            final class Person {
                var identifier: UUID {
                    @storageRestrictions(initializes: _identifier)
                    init(initialValue) {
                        _identifier = initialValue
                    }
                    get {
                        observationAccess(\.identifier, member: .attribute(0))
                        return _identifier
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_identifier, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.identifier, member: .attribute(0)) {
                            _identifier = newValue
                        }
                        didChangeAttribute(at: 0)
                    }
                }

                private var _identifier: UUID
                var name {
                    @storageRestrictions(initializes: _name)
                    init(initialValue) {
                        _name = initialValue
                    }
                    get {
                        observationAccess(\.name, member: .attribute(1))
                        return _name
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_name, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.name, member: .attribute(1)) {
                            _name = newValue
                        }
                        didChangeAttribute(at: 1)
                    }
                }

                private var _name: String
                var age: Int {
                    @storageRestrictions(initializes: _age)
                    init(initialValue) {
                        _age = initialValue
                    }
                    get {
                        observationAccess(\.age, member: .attribute(2))
                        return _age
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_age, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.age, member: .attribute(2)) {
                            _age = newValue
                        }
                        didChangeAttribute(at: 2)
                    }
                }

                private var _age: Int
                var email: String? {
                    @storageRestrictions(initializes: _email)
                    init(initialValue) {
                        _email = initialValue
                    }
                    get {
                        observationAccess(\.email, member: .attribute(3))
                        return _email
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_email, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.email, member: .attribute(3)) {
                            _email = newValue
                        }
                        didChangeAttribute(at: 3)
                    }
                }

                private var _email: Optional<String>
                var createdAt: Date {
                    @storageRestrictions(initializes: _createdAt)
                    init(initialValue) {
                        _createdAt = initialValue
                    }
                    get {
                        observationAccess(\.createdAt, member: .attribute(4))
                        return _createdAt
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_createdAt, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.createdAt, member: .attribute(4)) {
                            _createdAt = newValue
                        }
                        didChangeAttribute(at: 4)
                    }
                }

                private var _createdAt: Date
                var mood: Mood {
                    @storageRestrictions(initializes: _mood)
                    init(initialValue) {
                        _mood = initialValue
                    }
                    get {
                        observationAccess(\.mood, member: .attribute(5))
                        return _mood
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_mood, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.mood, member: .attribute(5)) {
                            _mood = newValue
                        }
                        didChangeAttribute(at: 5)
                    }
                }

                private var _mood: Mood

                nonisolated private static let _coder_mood: some LiteRecord.AttributeCoding.AttributeCoder<Mood> = LiteRecord.AttributeCoding.coder(for: Mood.self)
                var tags: [String] {
                    @storageRestrictions(initializes: _tags)
                    init(initialValue) {
                        _tags = initialValue
                    }
                    get {
                        observationAccess(\.tags, member: .attribute(6))
                        return _tags
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_tags, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.tags, member: .attribute(6)) {
                            _tags = newValue
                        }
                        didChangeAttribute(at: 6)
                    }
                }

                private var _tags: [String]

                nonisolated private static let _coder_tags: some LiteRecord.AttributeCoding.AttributeCoder<[String]> = LiteRecord.AttributeCoding.coder(for: [String].self)
                var scratch = 0
                var initials: String { String(name.prefix(1)) }

                init() {}
                init(name: String, age: Int) {
                    self.name = name
                    self.age = age
                }

                func awakeFromInsert() { identifier = UUID() }

                @exclusivity(unchecked) var recordState = LiteRecord.RecordState()

                static let entityName = "Person"

                static let tracksChanges = true

                static let attributes: [LiteRecord.AttributeDescription] = [
                    LiteRecord.AttributeDescription(
                        "identifier",
                        type: LiteRecord.AttributeCoding.type(of: UUID.self),
                        options: [.unique],
                        defaultValue: {
                            try LiteRecord.AttributeCoding.encode(UUID())
                        }
                    ),
                    LiteRecord.AttributeDescription(
                        "name",
                        type: LiteRecord.AttributeCoding.type(of: String.self),
                        defaultValue: {
                            try LiteRecord.AttributeCoding.encode("")
                        }
                    ),
                    LiteRecord.AttributeDescription(
                        "age",
                        type: LiteRecord.AttributeCoding.type(of: Int.self),
                        defaultValue: {
                            try LiteRecord.AttributeCoding.encode(0)
                        }
                    ),
                    LiteRecord.AttributeDescription(
                        "email",
                        type: LiteRecord.AttributeCoding.type(of: String.self),
                        isOptional: true
                    ),
                    LiteRecord.AttributeDescription(
                        "createdAt",
                        type: LiteRecord.AttributeCoding.type(of: Date.self),
                        originalName: "created",
                        defaultValue: {
                            try LiteRecord.AttributeCoding.encode(.now as Date)
                        }
                    ),
                    LiteRecord.AttributeDescription(
                        "mood",
                        type: Person._coder_mood.attributeType,
                        defaultValue: {
                            try Person._coder_mood.encode(.calm as Mood)
                        }
                    ),
                    LiteRecord.AttributeDescription(
                        "tags",
                        type: Person._coder_tags.attributeType,
                        defaultValue: {
                            try Person._coder_tags.encode([] as [String])
                        }
                    ),
                ]

                init(row: LiteRecord.Row) throws {
                    _identifier = try row.decode(UUID.self, at: 0)
                    _name = try row.decode(String.self, at: 1)
                    _age = try row.decode(Int.self, at: 2)
                    _email = try row.decodeOptional(String.self, at: 3)
                    _createdAt = try row.decode(Date.self, at: 4)
                    _mood = try Person._coder_mood.decode(from: row, at: 5)
                    _tags = try Person._coder_tags.decode(from: row, at: 6)
                }

                func encodeAttribute(at index: Int) throws -> LiteRecord.SQLValue {
                    switch index {
                    case 0:
                        try LiteRecord.AttributeCoding.encode(_identifier)
                    case 1:
                        try LiteRecord.AttributeCoding.encode(_name)
                    case 2:
                        try LiteRecord.AttributeCoding.encode(_age)
                    case 3:
                        try LiteRecord.AttributeCoding.encodeOptional(_email)
                    case 4:
                        try LiteRecord.AttributeCoding.encode(_createdAt)
                    case 5:
                        try Person._coder_mood.encode(_mood)
                    case 6:
                        try Person._coder_tags.encode(_tags)
                    default:
                        .null
                    }
                }

                func decodeAttribute(at index: Int, from row: LiteRecord.Row) throws {
                    switch index {
                    case 0:
                        let value = try row.decode(UUID.self, at: 0)
                        storeObserved(\Person.identifier, member: .attribute(0), LiteRecord.AttributeCoding.isChange(_identifier, value)) {
                            _identifier = value
                        }
                    case 1:
                        let value = try row.decode(String.self, at: 1)
                        storeObserved(\Person.name, member: .attribute(1), LiteRecord.AttributeCoding.isChange(_name, value)) {
                            _name = value
                        }
                    case 2:
                        let value = try row.decode(Int.self, at: 2)
                        storeObserved(\Person.age, member: .attribute(2), LiteRecord.AttributeCoding.isChange(_age, value)) {
                            _age = value
                        }
                    case 3:
                        let value = try row.decodeOptional(String.self, at: 3)
                        storeObserved(\Person.email, member: .attribute(3), LiteRecord.AttributeCoding.isChange(_email, value)) {
                            _email = value
                        }
                    case 4:
                        let value = try row.decode(Date.self, at: 4)
                        storeObserved(\Person.createdAt, member: .attribute(4), LiteRecord.AttributeCoding.isChange(_createdAt, value)) {
                            _createdAt = value
                        }
                    case 5:
                        let value = try Person._coder_mood.decode(from: row, at: 5)
                        storeObserved(\Person.mood, member: .attribute(5), LiteRecord.AttributeCoding.isChange(_mood, value)) {
                            _mood = value
                        }
                    case 6:
                        let value = try Person._coder_tags.decode(from: row, at: 6)
                        storeObserved(\Person.tags, member: .attribute(6), LiteRecord.AttributeCoding.isChange(_tags, value)) {
                            _tags = value
                        }
                    default:
                        break
                    }
                }

                static func attributeIndex(for keyPath: PartialKeyPath<Person>) -> Int? {
                    switch keyPath {
                    case \Person.identifier:
                        0
                    case \Person.name:
                        1
                    case \Person.age:
                        2
                    case \Person.email:
                        3
                    case \Person.createdAt:
                        4
                    case \Person.mood:
                        5
                    case \Person.tags:
                        6
                    default:
                        nil
                    }
                }

                static func memberKeyPath(named name: String, throughOptional: Bool) -> AnyKeyPath? {
                    switch (name, throughOptional) {
                    case ("identifier", true):
                        \Person?.?.identifier
                    case ("name", true):
                        \Person?.?.name
                    case ("age", true):
                        \Person?.?.age
                    case ("email", true):
                        \Person?.?.email
                    case ("createdAt", true):
                        \Person?.?.createdAt
                    case ("mood", true):
                        \Person?.?.mood
                    case ("tags", true):
                        \Person?.?.tags
                    default:
                        nil
                    }
                }
            }

            nonisolated extension Person: LiteRecord.Entity, LiteRecord.DefaultInitializable, Swift.Equatable, LiteRecord.ObservableRecord {
            }
            """#)
    }

    @Test func publicEntityInAModelModule() {
        assertExpansion(
            """
            @Entity(name: "Note", originalName: "Memo")
            public final class Note {
                @Attribute(.unique, .indexed) public var title: String = ""
                public var body: String?
                public private(set) var revision = 0
            }
            """,
            expandedSource: #"""
            public final class Note {
                public var title: String {
                    @storageRestrictions(initializes: _title)
                    init(initialValue) {
                        _title = initialValue
                    }
                    get {
                        observationAccess(\.title, member: .attribute(0))
                        return _title
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_title, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.title, member: .attribute(0)) {
                            _title = newValue
                        }
                        didChangeAttribute(at: 0)
                    }
                }

                private var _title: String
                public var body: String? {
                    @storageRestrictions(initializes: _body)
                    init(initialValue) {
                        _body = initialValue
                    }
                    get {
                        observationAccess(\.body, member: .attribute(1))
                        return _body
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_body, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.body, member: .attribute(1)) {
                            _body = newValue
                        }
                        didChangeAttribute(at: 1)
                    }
                }

                private var _body: Optional<String>
                public private(set) var revision {
                    @storageRestrictions(initializes: _revision)
                    init(initialValue) {
                        _revision = initialValue
                    }
                    get {
                        observationAccess(\.revision, member: .attribute(2))
                        return _revision
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_revision, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.revision, member: .attribute(2)) {
                            _revision = newValue
                        }
                        didChangeAttribute(at: 2)
                    }
                }

                private var _revision: Int

                @exclusivity(unchecked) public var recordState = LiteRecord.RecordState()

                public static let entityName = "Note"

                public static let entityOriginalName: String? = "Memo"

                public static let tracksChanges = true

                public static let attributes: [LiteRecord.AttributeDescription] = [
                    LiteRecord.AttributeDescription(
                        "title",
                        type: LiteRecord.AttributeCoding.type(of: String.self),
                        options: [.unique, .indexed],
                        defaultValue: {
                            try LiteRecord.AttributeCoding.encode("")
                        }
                    ),
                    LiteRecord.AttributeDescription(
                        "body",
                        type: LiteRecord.AttributeCoding.type(of: String.self),
                        isOptional: true
                    ),
                    LiteRecord.AttributeDescription(
                        "revision",
                        type: LiteRecord.AttributeCoding.type(of: Int.self),
                        defaultValue: {
                            try LiteRecord.AttributeCoding.encode(0)
                        }
                    ),
                ]

                public init(row: LiteRecord.Row) throws {
                    _title = try row.decode(String.self, at: 0)
                    _body = try row.decodeOptional(String.self, at: 1)
                    _revision = try row.decode(Int.self, at: 2)
                }

                public init() {
                }

                public func encodeAttribute(at index: Int) throws -> LiteRecord.SQLValue {
                    switch index {
                    case 0:
                        try LiteRecord.AttributeCoding.encode(_title)
                    case 1:
                        try LiteRecord.AttributeCoding.encodeOptional(_body)
                    case 2:
                        try LiteRecord.AttributeCoding.encode(_revision)
                    default:
                        .null
                    }
                }

                public func decodeAttribute(at index: Int, from row: LiteRecord.Row) throws {
                    switch index {
                    case 0:
                        let value = try row.decode(String.self, at: 0)
                        storeObserved(\Note.title, member: .attribute(0), LiteRecord.AttributeCoding.isChange(_title, value)) {
                            _title = value
                        }
                    case 1:
                        let value = try row.decodeOptional(String.self, at: 1)
                        storeObserved(\Note.body, member: .attribute(1), LiteRecord.AttributeCoding.isChange(_body, value)) {
                            _body = value
                        }
                    case 2:
                        let value = try row.decode(Int.self, at: 2)
                        storeObserved(\Note.revision, member: .attribute(2), LiteRecord.AttributeCoding.isChange(_revision, value)) {
                            _revision = value
                        }
                    default:
                        break
                    }
                }

                public static func attributeIndex(for keyPath: PartialKeyPath<Note>) -> Int? {
                    switch keyPath {
                    case \Note.title:
                        0
                    case \Note.body:
                        1
                    case \Note.revision:
                        2
                    default:
                        nil
                    }
                }

                public static func memberKeyPath(named name: String, throughOptional: Bool) -> AnyKeyPath? {
                    switch (name, throughOptional) {
                    case ("title", true):
                        \Note?.?.title
                    case ("body", true):
                        \Note?.?.body
                    case ("revision", true):
                        \Note?.?.revision
                    default:
                        nil
                    }
                }
            }

            nonisolated extension Note: LiteRecord.Entity, LiteRecord.DefaultInitializable, Swift.Equatable, LiteRecord.ObservableRecord {
            }
            """#)
    }

    @Test func entityWithoutDefaultsIsNotDefaultInitializable() {
        assertExpansion(
            """
            @Entity
            final class Label {
                var text: String
                var weight: Optional<Double>

                init(text: String) {
                    self.text = text
                    self.weight = nil
                }
            }
            """,
            expandedSource: #"""
            final class Label {
                var text: String {
                    @storageRestrictions(initializes: _text)
                    init(initialValue) {
                        _text = initialValue
                    }
                    get {
                        observationAccess(\.text, member: .attribute(0))
                        return _text
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_text, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.text, member: .attribute(0)) {
                            _text = newValue
                        }
                        didChangeAttribute(at: 0)
                    }
                }

                private var _text: String
                var weight: Optional<Double> {
                    @storageRestrictions(initializes: _weight)
                    init(initialValue) {
                        _weight = initialValue
                    }
                    get {
                        observationAccess(\.weight, member: .attribute(1))
                        return _weight
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_weight, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.weight, member: .attribute(1)) {
                            _weight = newValue
                        }
                        didChangeAttribute(at: 1)
                    }
                }

                private var _weight: Optional<Double>

                init(text: String) {
                    self.text = text
                    self.weight = nil
                }

                @exclusivity(unchecked) var recordState = LiteRecord.RecordState()

                static let entityName = "Label"

                static let tracksChanges = true

                static let attributes: [LiteRecord.AttributeDescription] = [
                    LiteRecord.AttributeDescription(
                        "text",
                        type: LiteRecord.AttributeCoding.type(of: String.self)
                    ),
                    LiteRecord.AttributeDescription(
                        "weight",
                        type: LiteRecord.AttributeCoding.type(of: Double.self),
                        isOptional: true
                    ),
                ]

                init(row: LiteRecord.Row) throws {
                    _text = try row.decode(String.self, at: 0)
                    _weight = try row.decodeOptional(Double.self, at: 1)
                }

                func encodeAttribute(at index: Int) throws -> LiteRecord.SQLValue {
                    switch index {
                    case 0:
                        try LiteRecord.AttributeCoding.encode(_text)
                    case 1:
                        try LiteRecord.AttributeCoding.encodeOptional(_weight)
                    default:
                        .null
                    }
                }

                func decodeAttribute(at index: Int, from row: LiteRecord.Row) throws {
                    switch index {
                    case 0:
                        let value = try row.decode(String.self, at: 0)
                        storeObserved(\Label.text, member: .attribute(0), LiteRecord.AttributeCoding.isChange(_text, value)) {
                            _text = value
                        }
                    case 1:
                        let value = try row.decodeOptional(Double.self, at: 1)
                        storeObserved(\Label.weight, member: .attribute(1), LiteRecord.AttributeCoding.isChange(_weight, value)) {
                            _weight = value
                        }
                    default:
                        break
                    }
                }

                static func attributeIndex(for keyPath: PartialKeyPath<Label>) -> Int? {
                    switch keyPath {
                    case \Label.text:
                        0
                    case \Label.weight:
                        1
                    default:
                        nil
                    }
                }

                static func memberKeyPath(named name: String, throughOptional: Bool) -> AnyKeyPath? {
                    switch (name, throughOptional) {
                    case ("text", true):
                        \Label?.?.text
                    case ("weight", true):
                        \Label?.?.weight
                    default:
                        nil
                    }
                }
            }

            nonisolated extension Label: LiteRecord.Entity, Swift.Equatable, LiteRecord.ObservableRecord {
            }
            """#)
    }

    @Test func publicEntityWithAnInternalInitIsNotDefaultInitializable() {
        assertExpansion(
            """
            @Entity
            public final class Draft {
                public var text = ""
                init() {}
            }
            """,
            expandedSource: #"""
            public final class Draft {
                public var text {
                    @storageRestrictions(initializes: _text)
                    init(initialValue) {
                        _text = initialValue
                    }
                    get {
                        observationAccess(\.text, member: .attribute(0))
                        return _text
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_text, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.text, member: .attribute(0)) {
                            _text = newValue
                        }
                        didChangeAttribute(at: 0)
                    }
                }

                private var _text: String
                init() {}

                @exclusivity(unchecked) public var recordState = LiteRecord.RecordState()

                public static let entityName = "Draft"

                public static let tracksChanges = true

                public static let attributes: [LiteRecord.AttributeDescription] = [
                    LiteRecord.AttributeDescription(
                        "text",
                        type: LiteRecord.AttributeCoding.type(of: String.self),
                        defaultValue: {
                            try LiteRecord.AttributeCoding.encode("")
                        }
                    ),
                ]

                public init(row: LiteRecord.Row) throws {
                    _text = try row.decode(String.self, at: 0)
                }

                public func encodeAttribute(at index: Int) throws -> LiteRecord.SQLValue {
                    switch index {
                    case 0:
                        try LiteRecord.AttributeCoding.encode(_text)
                    default:
                        .null
                    }
                }

                public func decodeAttribute(at index: Int, from row: LiteRecord.Row) throws {
                    switch index {
                    case 0:
                        let value = try row.decode(String.self, at: 0)
                        storeObserved(\Draft.text, member: .attribute(0), LiteRecord.AttributeCoding.isChange(_text, value)) {
                            _text = value
                        }
                    default:
                        break
                    }
                }

                public static func attributeIndex(for keyPath: PartialKeyPath<Draft>) -> Int? {
                    switch keyPath {
                    case \Draft.text:
                        0
                    default:
                        nil
                    }
                }

                public static func memberKeyPath(named name: String, throughOptional: Bool) -> AnyKeyPath? {
                    switch (name, throughOptional) {
                    case ("text", true):
                        \Draft?.?.text
                    default:
                        nil
                    }
                }
            }

            nonisolated extension Draft: LiteRecord.Entity, Swift.Equatable, LiteRecord.ObservableRecord {
            }
            """#,
            // Said at the user's line, not left to be found.
            diagnostics: [
                DiagnosticSpec(
                    message: "'init()' is less visible than the public class 'Draft', so it gets no 'create(in:)' (DefaultInitializable); make 'init()' public",
                    line: 4, column: 5, severity: .warning, fixIts: [FixItSpec(message: "Make 'init()' public")]),
            ],
            applyFixIts: ["Make 'init()' public"],
            fixedSource: """
                @Entity
                public final class Draft {
                    public var text = ""
                    public init() {}
                }
                """)
    }

    @Test func inferredTypesAndUnusualNames() {
        assertExpansion(
            """
            @Entity
            package final class Sample {
                var `default` = -1
                var ratio = -0.5
                var flag = true
                var words = ["a", "b"]
                var ids = [UUID]()
                var counts = [String: Int]()
                var stamp = Foundation.Date()
                var level: Double = 1
                var maybe: Optional<Int> = nil
                static var shared = 0
                @Transient lazy var cache: [Int] = []
            }
            """,
            expandedSource: #"""
            package final class Sample {
                var `default` {
                    @storageRestrictions(initializes: _default)
                    init(initialValue) {
                        _default = initialValue
                    }
                    get {
                        observationAccess(\.`default`, member: .attribute(0))
                        return _default
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_default, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.`default`, member: .attribute(0)) {
                            _default = newValue
                        }
                        didChangeAttribute(at: 0)
                    }
                }

                private var _default: Int
                var ratio {
                    @storageRestrictions(initializes: _ratio)
                    init(initialValue) {
                        _ratio = initialValue
                    }
                    get {
                        observationAccess(\.ratio, member: .attribute(1))
                        return _ratio
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_ratio, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.ratio, member: .attribute(1)) {
                            _ratio = newValue
                        }
                        didChangeAttribute(at: 1)
                    }
                }

                private var _ratio: Double
                var flag {
                    @storageRestrictions(initializes: _flag)
                    init(initialValue) {
                        _flag = initialValue
                    }
                    get {
                        observationAccess(\.flag, member: .attribute(2))
                        return _flag
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_flag, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.flag, member: .attribute(2)) {
                            _flag = newValue
                        }
                        didChangeAttribute(at: 2)
                    }
                }

                private var _flag: Bool
                var words {
                    @storageRestrictions(initializes: _words)
                    init(initialValue) {
                        _words = initialValue
                    }
                    get {
                        observationAccess(\.words, member: .attribute(3))
                        return _words
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_words, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.words, member: .attribute(3)) {
                            _words = newValue
                        }
                        didChangeAttribute(at: 3)
                    }
                }

                private var _words: [String]

                nonisolated private static let _coder_words: some LiteRecord.AttributeCoding.AttributeCoder<[String]> = LiteRecord.AttributeCoding.coder(for: [String].self)
                var ids {
                    @storageRestrictions(initializes: _ids)
                    init(initialValue) {
                        _ids = initialValue
                    }
                    get {
                        observationAccess(\.ids, member: .attribute(4))
                        return _ids
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_ids, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.ids, member: .attribute(4)) {
                            _ids = newValue
                        }
                        didChangeAttribute(at: 4)
                    }
                }

                private var _ids: [UUID]

                nonisolated private static let _coder_ids: some LiteRecord.AttributeCoding.AttributeCoder<[UUID]> = LiteRecord.AttributeCoding.coder(for: [UUID].self)
                var counts {
                    @storageRestrictions(initializes: _counts)
                    init(initialValue) {
                        _counts = initialValue
                    }
                    get {
                        observationAccess(\.counts, member: .attribute(5))
                        return _counts
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_counts, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.counts, member: .attribute(5)) {
                            _counts = newValue
                        }
                        didChangeAttribute(at: 5)
                    }
                }

                private var _counts: [String: Int]

                nonisolated private static let _coder_counts: some LiteRecord.AttributeCoding.AttributeCoder<[String: Int]> = LiteRecord.AttributeCoding.coder(for: [String: Int].self)
                var stamp {
                    @storageRestrictions(initializes: _stamp)
                    init(initialValue) {
                        _stamp = initialValue
                    }
                    get {
                        observationAccess(\.stamp, member: .attribute(6))
                        return _stamp
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_stamp, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.stamp, member: .attribute(6)) {
                            _stamp = newValue
                        }
                        didChangeAttribute(at: 6)
                    }
                }

                private var _stamp: Foundation.Date
                var level: Double {
                    @storageRestrictions(initializes: _level)
                    init(initialValue) {
                        _level = initialValue
                    }
                    get {
                        observationAccess(\.level, member: .attribute(7))
                        return _level
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_level, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.level, member: .attribute(7)) {
                            _level = newValue
                        }
                        didChangeAttribute(at: 7)
                    }
                }

                private var _level: Double
                var maybe: Optional<Int> {
                    @storageRestrictions(initializes: _maybe)
                    init(initialValue) {
                        _maybe = initialValue
                    }
                    get {
                        observationAccess(\.maybe, member: .attribute(8))
                        return _maybe
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_maybe, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.maybe, member: .attribute(8)) {
                            _maybe = newValue
                        }
                        didChangeAttribute(at: 8)
                    }
                }

                private var _maybe: Optional<Int>
                static var shared = 0
                lazy var cache: [Int] = []

                @exclusivity(unchecked) package var recordState = LiteRecord.RecordState()

                package static let entityName = "Sample"

                package static let tracksChanges = true

                package static let attributes: [LiteRecord.AttributeDescription] = [
                    LiteRecord.AttributeDescription(
                        "default",
                        type: LiteRecord.AttributeCoding.type(of: Int.self),
                        defaultValue: {
                            try LiteRecord.AttributeCoding.encode(-1)
                        }
                    ),
                    LiteRecord.AttributeDescription(
                        "ratio",
                        type: LiteRecord.AttributeCoding.type(of: Double.self),
                        defaultValue: {
                            try LiteRecord.AttributeCoding.encode(-0.5)
                        }
                    ),
                    LiteRecord.AttributeDescription(
                        "flag",
                        type: LiteRecord.AttributeCoding.type(of: Bool.self),
                        defaultValue: {
                            try LiteRecord.AttributeCoding.encode(true)
                        }
                    ),
                    LiteRecord.AttributeDescription(
                        "words",
                        type: Sample._coder_words.attributeType,
                        defaultValue: {
                            try Sample._coder_words.encode(["a", "b"])
                        }
                    ),
                    LiteRecord.AttributeDescription(
                        "ids",
                        type: Sample._coder_ids.attributeType,
                        defaultValue: {
                            try Sample._coder_ids.encode([UUID]())
                        }
                    ),
                    LiteRecord.AttributeDescription(
                        "counts",
                        type: Sample._coder_counts.attributeType,
                        defaultValue: {
                            try Sample._coder_counts.encode([String: Int]())
                        }
                    ),
                    LiteRecord.AttributeDescription(
                        "stamp",
                        type: LiteRecord.AttributeCoding.type(of: Foundation.Date.self),
                        defaultValue: {
                            try LiteRecord.AttributeCoding.encode(Foundation.Date())
                        }
                    ),
                    LiteRecord.AttributeDescription(
                        "level",
                        type: LiteRecord.AttributeCoding.type(of: Double.self),
                        defaultValue: {
                            try LiteRecord.AttributeCoding.encode(1 as Double)
                        }
                    ),
                    LiteRecord.AttributeDescription(
                        "maybe",
                        type: LiteRecord.AttributeCoding.type(of: Int.self),
                        isOptional: true,
                        defaultValue: {
                            try LiteRecord.AttributeCoding.encodeOptional(nil as Optional<Int>)
                        }
                    ),
                ]

                package init(row: LiteRecord.Row) throws {
                    _default = try row.decode(Int.self, at: 0)
                    _ratio = try row.decode(Double.self, at: 1)
                    _flag = try row.decode(Bool.self, at: 2)
                    _words = try Sample._coder_words.decode(from: row, at: 3)
                    _ids = try Sample._coder_ids.decode(from: row, at: 4)
                    _counts = try Sample._coder_counts.decode(from: row, at: 5)
                    _stamp = try row.decode(Foundation.Date.self, at: 6)
                    _level = try row.decode(Double.self, at: 7)
                    _maybe = try row.decodeOptional(Int.self, at: 8)
                }

                package init() {
                }

                package func encodeAttribute(at index: Int) throws -> LiteRecord.SQLValue {
                    switch index {
                    case 0:
                        try LiteRecord.AttributeCoding.encode(_default)
                    case 1:
                        try LiteRecord.AttributeCoding.encode(_ratio)
                    case 2:
                        try LiteRecord.AttributeCoding.encode(_flag)
                    case 3:
                        try Sample._coder_words.encode(_words)
                    case 4:
                        try Sample._coder_ids.encode(_ids)
                    case 5:
                        try Sample._coder_counts.encode(_counts)
                    case 6:
                        try LiteRecord.AttributeCoding.encode(_stamp)
                    case 7:
                        try LiteRecord.AttributeCoding.encode(_level)
                    case 8:
                        try LiteRecord.AttributeCoding.encodeOptional(_maybe)
                    default:
                        .null
                    }
                }

                package func decodeAttribute(at index: Int, from row: LiteRecord.Row) throws {
                    switch index {
                    case 0:
                        let value = try row.decode(Int.self, at: 0)
                        storeObserved(\Sample.`default`, member: .attribute(0), LiteRecord.AttributeCoding.isChange(_default, value)) {
                            _default = value
                        }
                    case 1:
                        let value = try row.decode(Double.self, at: 1)
                        storeObserved(\Sample.ratio, member: .attribute(1), LiteRecord.AttributeCoding.isChange(_ratio, value)) {
                            _ratio = value
                        }
                    case 2:
                        let value = try row.decode(Bool.self, at: 2)
                        storeObserved(\Sample.flag, member: .attribute(2), LiteRecord.AttributeCoding.isChange(_flag, value)) {
                            _flag = value
                        }
                    case 3:
                        let value = try Sample._coder_words.decode(from: row, at: 3)
                        storeObserved(\Sample.words, member: .attribute(3), LiteRecord.AttributeCoding.isChange(_words, value)) {
                            _words = value
                        }
                    case 4:
                        let value = try Sample._coder_ids.decode(from: row, at: 4)
                        storeObserved(\Sample.ids, member: .attribute(4), LiteRecord.AttributeCoding.isChange(_ids, value)) {
                            _ids = value
                        }
                    case 5:
                        let value = try Sample._coder_counts.decode(from: row, at: 5)
                        storeObserved(\Sample.counts, member: .attribute(5), LiteRecord.AttributeCoding.isChange(_counts, value)) {
                            _counts = value
                        }
                    case 6:
                        let value = try row.decode(Foundation.Date.self, at: 6)
                        storeObserved(\Sample.stamp, member: .attribute(6), LiteRecord.AttributeCoding.isChange(_stamp, value)) {
                            _stamp = value
                        }
                    case 7:
                        let value = try row.decode(Double.self, at: 7)
                        storeObserved(\Sample.level, member: .attribute(7), LiteRecord.AttributeCoding.isChange(_level, value)) {
                            _level = value
                        }
                    case 8:
                        let value = try row.decodeOptional(Int.self, at: 8)
                        storeObserved(\Sample.maybe, member: .attribute(8), LiteRecord.AttributeCoding.isChange(_maybe, value)) {
                            _maybe = value
                        }
                    default:
                        break
                    }
                }

                package static func attributeIndex(for keyPath: PartialKeyPath<Sample>) -> Int? {
                    switch keyPath {
                    case \Sample.`default`:
                        0
                    case \Sample.ratio:
                        1
                    case \Sample.flag:
                        2
                    case \Sample.words:
                        3
                    case \Sample.ids:
                        4
                    case \Sample.counts:
                        5
                    case \Sample.stamp:
                        6
                    case \Sample.level:
                        7
                    case \Sample.maybe:
                        8
                    default:
                        nil
                    }
                }

                package static func memberKeyPath(named name: String, throughOptional: Bool) -> AnyKeyPath? {
                    switch (name, throughOptional) {
                    case ("default", true):
                        \Sample?.?.`default`
                    case ("ratio", true):
                        \Sample?.?.ratio
                    case ("flag", true):
                        \Sample?.?.flag
                    case ("words", true):
                        \Sample?.?.words
                    case ("ids", true):
                        \Sample?.?.ids
                    case ("counts", true):
                        \Sample?.?.counts
                    case ("stamp", true):
                        \Sample?.?.stamp
                    case ("level", true):
                        \Sample?.?.level
                    case ("maybe", true):
                        \Sample?.?.maybe
                    default:
                        nil
                    }
                }
            }

            nonisolated extension Sample: LiteRecord.Entity, LiteRecord.DefaultInitializable, Swift.Equatable, LiteRecord.ObservableRecord {
            }
            """#)
    }

    @Test func entityWithoutStoredProperties() {
        assertExpansion(
            """
            @Entity
            final class Marker {
            }
            """,
            expandedSource: #"""
            final class Marker {

                @exclusivity(unchecked) var recordState = LiteRecord.RecordState()

                static let entityName = "Marker"

                static let tracksChanges = true

                static let attributes: [LiteRecord.AttributeDescription] = []

                init(row: LiteRecord.Row) throws {
                }

                init() {
                }

                func encodeAttribute(at index: Int) throws -> LiteRecord.SQLValue {
                    switch index {
                    default:
                        .null
                    }
                }

                func decodeAttribute(at index: Int, from row: LiteRecord.Row) throws {
                    switch index {
                    default:
                        break
                    }
                }

                static func attributeIndex(for keyPath: PartialKeyPath<Marker>) -> Int? {
                    switch keyPath {
                    default:
                        nil
                    }
                }

                static func memberKeyPath(named name: String, throughOptional: Bool) -> AnyKeyPath? {
                    switch (name, throughOptional) {
                    default:
                        nil
                    }
                }
            }

            nonisolated extension Marker: LiteRecord.Entity, LiteRecord.DefaultInitializable, Swift.Equatable, LiteRecord.ObservableRecord {
            }
            """#)
    }
}
