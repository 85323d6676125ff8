import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// One diagnostic at the user's line, saying what to do, for what an app
/// developer writes on day one and the generated code could only reject with
/// errors about storage the user never wrote.
@Suite struct EntityMacroFirstHourDiagnosticsTests {
    @Test func typesThatCanNeverBeStored() {
        assertExpansion(
            """
            @Entity
            final class Glyph {
                var symbol: Character = "a"
                var weight: NSNumber = 1
            }
            """,
            expandedSource: """
            final class Glyph {
                var symbol: Character = "a"
                var weight: NSNumber = 1
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "stored property 'symbol' has type 'Character', which LiteRecord cannot store ('Character' is not Codable; store it as a 'String'); mark it '@Transient'",
                    line: 3, column: 17, fixIts: [FixItSpec(message: "Mark it '@Transient'")]),
                DiagnosticSpec(
                    message: "stored property 'weight' has type 'NSNumber', which LiteRecord cannot store ('NSNumber' is not Codable; use 'Int', 'Double' or 'Decimal'); mark it '@Transient'",
                    line: 4, column: 17, fixIts: [FixItSpec(message: "Mark it '@Transient'")]),
            ])
    }

    @Test func aPropertyWrapperOnAStoredProperty() {
        assertExpansion(
            """
            @Entity
            final class Setting {
                @Clamped var level = 0
                @MainActor var shown = false
            }
            """,
            expandedSource: """
            final class Setting {
                @Clamped var level = 0
                @MainActor var shown = false
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "stored property 'level' cannot use the property wrapper or macro '@Clamped', because '@Entity' generates its accessors; mark it '@Transient' or store the wrapped value",
                    line: 3, column: 5, fixIts: [FixItSpec(message: "Mark it '@Transient'")]),
            ],
            applyFixIts: ["Mark it '@Transient'"],
            fixedSource: """
                @Entity
                final class Setting {
                    @Transient
                    @Clamped var level = 0
                    @MainActor var shown = false
                }
                """)
    }

    /// A type the macro cannot judge by its name (an enum, a struct) gets one
    /// coder, declared beside the property; every generated call goes
    /// through it. For a type LiteRecord cannot store, choosing the coder is
    /// the one place that fails (Tests/CompileChecks/UnstorableEnum.swift).
    @Test func aTypeTheMacroCannotJudgeGetsOneCoder() {
        assertExpansion(
            """
            @Entity
            final class Diary {
                var mood: Mood = .calm
                var title = ""
            }
            """,
            expandedSource: #"""
            final class Diary {
                var mood: Mood {
                    @storageRestrictions(initializes: _mood)
                    init(initialValue) {
                        _mood = initialValue
                    }
                    get {
                        observationAccess(\.mood, member: .attribute(0))
                        return _mood
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_mood, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.mood, member: .attribute(0)) {
                            _mood = newValue
                        }
                        didChangeAttribute(at: 0)
                    }
                }

                private var _mood: Mood

                nonisolated private static let _coder_mood: some LiteRecord.AttributeCoding.AttributeCoder<Mood> = LiteRecord.AttributeCoding.coder(for: Mood.self)
                var title {
                    @storageRestrictions(initializes: _title)
                    init(initialValue) {
                        _title = initialValue
                    }
                    get {
                        observationAccess(\.title, member: .attribute(1))
                        return _title
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_title, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.title, member: .attribute(1)) {
                            _title = newValue
                        }
                        didChangeAttribute(at: 1)
                    }
                }

                private var _title: String

                @exclusivity(unchecked) var recordState = LiteRecord.RecordState()

                static let entityName = "Diary"

                static let tracksChanges = true

                static let attributes: [LiteRecord.AttributeDescription] = [
                    LiteRecord.AttributeDescription(
                        "mood",
                        type: Diary._coder_mood.attributeType,
                        defaultValue: {
                            try Diary._coder_mood.encode(.calm as Mood)
                        }
                    ),
                    LiteRecord.AttributeDescription(
                        "title",
                        type: LiteRecord.AttributeCoding.type(of: String.self),
                        defaultValue: {
                            try LiteRecord.AttributeCoding.encode("")
                        }
                    ),
                ]

                init(row: LiteRecord.Row) throws {
                    _mood = try Diary._coder_mood.decode(from: row, at: 0)
                    _title = try row.decode(String.self, at: 1)
                }

                init() {
                }

                func encodeAttribute(at index: Int) throws -> LiteRecord.SQLValue {
                    switch index {
                    case 0:
                        try Diary._coder_mood.encode(_mood)
                    case 1:
                        try LiteRecord.AttributeCoding.encode(_title)
                    default:
                        .null
                    }
                }

                func decodeAttribute(at index: Int, from row: LiteRecord.Row) throws {
                    switch index {
                    case 0:
                        let value = try Diary._coder_mood.decode(from: row, at: 0)
                        storeObserved(\Diary.mood, member: .attribute(0), LiteRecord.AttributeCoding.isChange(_mood, value)) {
                            _mood = value
                        }
                    case 1:
                        let value = try row.decode(String.self, at: 1)
                        storeObserved(\Diary.title, member: .attribute(1), LiteRecord.AttributeCoding.isChange(_title, value)) {
                            _title = value
                        }
                    default:
                        break
                    }
                }

                static func attributeIndex(for keyPath: PartialKeyPath<Diary>) -> Int? {
                    switch keyPath {
                    case \Diary.mood:
                        0
                    case \Diary.title:
                        1
                    default:
                        nil
                    }
                }

                static func memberKeyPath(named name: String, throughOptional: Bool) -> AnyKeyPath? {
                    switch (name, throughOptional) {
                    case ("mood", true):
                        \Diary?.?.mood
                    case ("title", true):
                        \Diary?.?.title
                    default:
                        nil
                    }
                }
            }

            nonisolated extension Diary: LiteRecord.Entity, LiteRecord.DefaultInitializable, Swift.Equatable, LiteRecord.ObservableRecord {
            }
            """#)
    }

    /// The fix-it of the warning about a public class's internal `init()`
    /// replaces its access modifier, or adds one.
    @Test func makingAPublicClassesInitPublic() {
        assertExpansion(
            """
            @Entity
            public final class Draft {
                internal init() {}
            }
            """,
            expandedSource: #"""
            public final class Draft {
                internal init() {}

                @exclusivity(unchecked) public var recordState = LiteRecord.RecordState()

                public static let entityName = "Draft"

                public static let tracksChanges = true

                public static let attributes: [LiteRecord.AttributeDescription] = []

                public init(row: LiteRecord.Row) throws {
                }

                public func encodeAttribute(at index: Int) throws -> LiteRecord.SQLValue {
                    switch index {
                    default:
                        .null
                    }
                }

                public func decodeAttribute(at index: Int, from row: LiteRecord.Row) throws {
                    switch index {
                    default:
                        break
                    }
                }

                public static func attributeIndex(for keyPath: PartialKeyPath<Draft>) -> Int? {
                    switch keyPath {
                    default:
                        nil
                    }
                }

                public static func memberKeyPath(named name: String, throughOptional: Bool) -> AnyKeyPath? {
                    switch (name, throughOptional) {
                    default:
                        nil
                    }
                }
            }

            nonisolated extension Draft: LiteRecord.Entity, Swift.Equatable, LiteRecord.ObservableRecord {
            }
            """#,
            diagnostics: [
                DiagnosticSpec(
                    message: "'init()' is less visible than the public class 'Draft', so it gets no 'create(in:)' (DefaultInitializable); make 'init()' public",
                    line: 3, column: 14, severity: .warning, fixIts: [FixItSpec(message: "Make 'init()' public")]),
            ],
            applyFixIts: ["Make 'init()' public"],
            fixedSource: """
                @Entity
                public final class Draft {
                    public init() {}
                }
                """)
    }

    @Test func aSendableEntity() {
        assertExpansion(
            """
            @Entity
            final class Note: Sendable {
                var title = ""
            }
            """,
            expandedSource: """
            final class Note: Sendable {
                var title = ""
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Entity' class 'Note' cannot be 'Sendable': its objects belong to the context that fetched them; pass 'RecordID's or values between tasks",
                    line: 2, column: 19, fixIts: [FixItSpec(message: "Remove 'Sendable'")]),
            ],
            applyFixIts: ["Remove 'Sendable'"],
            fixedSource: """
                @Entity
                final class Note {
                    var title = ""
                }
                """)
    }

    /// The fix-it keeps the rest of the inheritance list, commas right.
    @Test func aSendableEntityWithOtherConformances() {
        assertExpansion(
            """
            @Entity
            final class Note: Identifiable, Sendable {
                var title = ""
            }
            """,
            expandedSource: """
            final class Note: Identifiable, Sendable {
                var title = ""
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Entity' class 'Note' cannot be 'Sendable': its objects belong to the context that fetched them; pass 'RecordID's or values between tasks",
                    line: 2, column: 33, fixIts: [FixItSpec(message: "Remove 'Sendable'")]),
            ],
            applyFixIts: ["Remove 'Sendable'"],
            fixedSource: """
                @Entity
                final class Note: Identifiable {
                    var title = ""
                }
                """)
    }

    @Test func anEntityNestedInAGenericType() {
        assertExpansion(
            """
            struct Library<Item> {
                @Entity
                final class Shelf {
                    var name = ""
                }
            }
            """,
            expandedSource: """
            struct Library<Item> {
                final class Shelf {
                    var name = ""
                }
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Entity' class 'Shelf' cannot be nested in the generic type 'Library'; declare it outside",
                    line: 3, column: 17),
            ])
    }

    /// A class that is only `Hashable` gets one error with a fix-it naming
    /// `Equatable`, instead of Swift's bare "does not conform to protocol
    /// 'Equatable'".
    @Test func aHashableEntityThatDoesNotNameEquatable() {
        assertExpansion(
            """
            @Entity
            final class Tag: Hashable {
                var label = ""
            }
            """,
            expandedSource: """
            final class Tag: Hashable {
                var label = ""
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Entity' class 'Tag' is 'Hashable' but does not name 'Equatable': write 'Tag: Equatable, Hashable' so that its own '==' is kept (with '@Entity' attached, Swift cannot find it for an 'Equatable' that 'Hashable' only implies)",
                    line: 2, column: 18, fixIts: [FixItSpec(message: "Add 'Equatable'")]),
            ])
    }
}
