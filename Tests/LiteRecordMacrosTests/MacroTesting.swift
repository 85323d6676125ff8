import LiteRecordMacros
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// The macros as the `LiteRecord` module declares them.
let entityMacros: [String: MacroSpec] = [
    "Entity": MacroSpec(
        type: EntityMacro.self,
        conformances: [
            TypeSyntax(IdentifierTypeSyntax(name: .identifier("Entity"))),
            TypeSyntax(IdentifierTypeSyntax(name: .identifier("DefaultInitializable"))),
            TypeSyntax(IdentifierTypeSyntax(name: .identifier("Equatable"))),
            TypeSyntax(IdentifierTypeSyntax(name: .identifier("ObservableRecord"))),
        ]),
    "Attribute": MacroSpec(type: AttributeMacro.self),
    "Transient": MacroSpec(type: TransientMacro.self),
    "_PersistedProperty": MacroSpec(type: PersistedPropertyMacro.self),
    "Relationship": MacroSpec(type: RelationshipMacro.self),
    "_RelationshipProperty": MacroSpec(type: RelationshipPropertyMacro.self),
    "_InferredProperty": MacroSpec(type: InferredPropertyMacro.self),
]

/// `assertMacroExpansion` reporting to Swift Testing: compares the whole
/// expanded source and every diagnostic (message, position, fix-its).
func assertExpansion(
    _ source: String,
    expandedSource: String,
    diagnostics: [DiagnosticSpec] = [],
    applyFixIts: [String]? = nil,
    fixedSource: String? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) {
    assertMacroExpansion(
        source,
        expandedSource: expandedSource,
        diagnostics: diagnostics,
        macroSpecs: entityMacros,
        applyFixIts: applyFixIts,
        fixedSource: fixedSource,
        failureHandler: { failure in
            Issue.record(
                Comment(rawValue: failure.message),
                sourceLocation: SourceLocation(
                    fileID: failure.location.fileID, filePath: failure.location.filePath,
                    line: failure.location.line, column: failure.location.column))
        },
        fileID: fileID,
        filePath: filePath,
        line: line,
        column: column)
}
