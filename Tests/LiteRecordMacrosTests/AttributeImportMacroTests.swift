import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// `@Attribute(importKey:dateFormat:)`: copied into the attribute
/// descriptions, and checked where they are written.
@Suite struct AttributeImportMacroTests {
    @Test func importKeyAndDateFormatReachTheAttributeDescriptions() {
        assertExpansion(
            """
            @Entity
            final class Person {
                @Attribute(.unique, importKey: "id") var identifier = 0
                @Attribute(importKey: "born", dateFormat: .iso8601) var birthday: Date?
                @Attribute(importKey: nil, dateFormat: .custom("dd/MM/yyyy", timeZone: zone)) var due: Date?
            }
            """,
            expandedSource: #"""
            final class Person {
                var identifier {
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

                private var _identifier: Int
                var birthday: Date? {
                    @storageRestrictions(initializes: _birthday)
                    init(initialValue) {
                        _birthday = initialValue
                    }
                    get {
                        observationAccess(\.birthday, member: .attribute(1))
                        return _birthday
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_birthday, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.birthday, member: .attribute(1)) {
                            _birthday = newValue
                        }
                        didChangeAttribute(at: 1)
                    }
                }

                private var _birthday: Optional<Date>
                var due: Date? {
                    @storageRestrictions(initializes: _due)
                    init(initialValue) {
                        _due = initialValue
                    }
                    get {
                        observationAccess(\.due, member: .attribute(2))
                        return _due
                    }
                    set {
                        guard LiteRecord.AttributeCoding.isChange(_due, newValue) else {
                            return
                        }
                        withObservedMutation(of: \.due, member: .attribute(2)) {
                            _due = newValue
                        }
                        didChangeAttribute(at: 2)
                    }
                }

                private var _due: Optional<Date>

                @exclusivity(unchecked) var recordState = LiteRecord.RecordState()

                static let entityName = "Person"

                static let tracksChanges = true

                static let attributes: [LiteRecord.AttributeDescription] = [
                    LiteRecord.AttributeDescription(
                        "identifier",
                        type: LiteRecord.AttributeCoding.type(of: Int.self),
                        options: [.unique],
                        defaultValue: {
                            try LiteRecord.AttributeCoding.encode(0)
                        },
                        importKey: "id"
                    ),
                    LiteRecord.AttributeDescription(
                        "birthday",
                        type: LiteRecord.AttributeCoding.type(of: Date.self),
                        isOptional: true,
                        importKey: "born",
                        dateFormat: .iso8601
                    ),
                    LiteRecord.AttributeDescription(
                        "due",
                        type: LiteRecord.AttributeCoding.type(of: Date.self),
                        isOptional: true,
                        dateFormat: .custom("dd/MM/yyyy", timeZone: zone)
                    ),
                ]

                init(row: LiteRecord.Row) throws {
                    _identifier = try row.decode(Int.self, at: 0)
                    _birthday = try row.decodeOptional(Date.self, at: 1)
                    _due = try row.decodeOptional(Date.self, at: 2)
                }

                init() {
                }

                func encodeAttribute(at index: Int) throws -> LiteRecord.SQLValue {
                    switch index {
                    case 0:
                        try LiteRecord.AttributeCoding.encode(_identifier)
                    case 1:
                        try LiteRecord.AttributeCoding.encodeOptional(_birthday)
                    case 2:
                        try LiteRecord.AttributeCoding.encodeOptional(_due)
                    default:
                        .null
                    }
                }

                func decodeAttribute(at index: Int, from row: LiteRecord.Row) throws {
                    switch index {
                    case 0:
                        let value = try row.decode(Int.self, at: 0)
                        storeObserved(\Person.identifier, member: .attribute(0), LiteRecord.AttributeCoding.isChange(_identifier, value)) {
                            _identifier = value
                        }
                    case 1:
                        let value = try row.decodeOptional(Date.self, at: 1)
                        storeObserved(\Person.birthday, member: .attribute(1), LiteRecord.AttributeCoding.isChange(_birthday, value)) {
                            _birthday = value
                        }
                    case 2:
                        let value = try row.decodeOptional(Date.self, at: 2)
                        storeObserved(\Person.due, member: .attribute(2), LiteRecord.AttributeCoding.isChange(_due, value)) {
                            _due = value
                        }
                    default:
                        break
                    }
                }

                static func attributeIndex(for keyPath: PartialKeyPath<Person>) -> Int? {
                    switch keyPath {
                    case \Person.identifier:
                        0
                    case \Person.birthday:
                        1
                    case \Person.due:
                        2
                    default:
                        nil
                    }
                }

                static func memberKeyPath(named name: String, throughOptional: Bool) -> AnyKeyPath? {
                    switch (name, throughOptional) {
                    case ("identifier", true):
                        \Person?.?.identifier
                    case ("birthday", true):
                        \Person?.?.birthday
                    case ("due", true):
                        \Person?.?.due
                    default:
                        nil
                    }
                }
            }

            nonisolated extension Person: LiteRecord.Entity, LiteRecord.DefaultInitializable, Swift.Equatable, LiteRecord.ObservableRecord {
            }
            """#)
    }

    @Test func anImportKeyMustBeAPlainKeyPath() {
        for key in ["\"\"", "\"a..b\"", "\".id\"", "prefix + \"id\""] {
            let column = 27 // where the argument starts: `@Attribute(importKey: ` is 26 characters after the indentation
            assertExpansion(
                """
                final class Person {
                    @Attribute(importKey: \(key)) var identifier = 0
                }
                """,
                expandedSource: """
                    final class Person {
                        var identifier = 0
                    }
                    """,
                diagnostics: [
                    DiagnosticSpec(
                        message: #"'importKey:' must be a plain string literal: a key, or a dotted key path such as "address.city""#,
                        line: 2, column: column)
                ])
        }
    }
}
