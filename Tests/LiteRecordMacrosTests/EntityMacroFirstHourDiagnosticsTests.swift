import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// One diagnostic at the user's line, saying what to do, for what an app
/// developer writes on day one and the generated code could only reject with
/// errors about storage the user never wrote (issue #64, item 7).
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
                    line: 3, column: 5),
            ])
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
                    line: 2, column: 19),
            ])
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
    /// 'Equatable'" (issue #64, item 2).
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
