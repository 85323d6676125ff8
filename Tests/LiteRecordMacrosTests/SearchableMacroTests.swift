import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// `@Attribute(.searchable)` and `.searchable(weight:)`: refused on anything
/// but `String` and `String?`, and the weight must be a positive number
/// literal, each with one exact diagnostic.
@Suite struct SearchableMacroTests {
    @Test func searchableOnlyOnText() {
        assertExpansion(
            """
            @Entity
            final class Doc {
                @Attribute(.searchable) var count = 0
                @Attribute(.searchable(weight: 2)) var created: Date?
                @Attribute(.searchable) var title = ""
                @Attribute(.searchable(weight: 1.5)) var body: String?
            }
            """,
            expandedSource: """
            final class Doc {
                var count = 0
                var created: Date?
                var title = ""
                var body: String?
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'.searchable' applies to 'String' and 'String?' properties, and 'count' is 'Int'",
                    line: 3, column: 33),
                DiagnosticSpec(
                    message: "'.searchable' applies to 'String' and 'String?' properties, and 'created' is 'Date?'",
                    line: 4, column: 44),
            ])
    }

    @Test func theWeightIsAPositiveNumberLiteral() {
        assertExpansion(
            """
            final class Doc {
                @Attribute(.searchable(weight: factor)) var title = ""
                @Attribute(.searchable(weight: 0)) var body = ""
            }
            """,
            expandedSource: """
            final class Doc {
                var title = ""
                var body = ""
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'factor' is not a search weight; write a positive number literal, e.g. '.searchable(weight: 2)'",
                    line: 2, column: 36),
                DiagnosticSpec(
                    message: "'0' is not a search weight; write a positive number literal, e.g. '.searchable(weight: 2)'",
                    line: 3, column: 36),
            ])
    }
}
