import SwiftCompilerPlugin
import SwiftSyntaxMacros

@main
struct LiteRecordMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        EntityMacro.self,
        PersistedPropertyMacro.self,
        AttributeMacro.self,
        TransientMacro.self,
        RelationshipMacro.self,
        RelationshipPropertyMacro.self,
        InferredPropertyMacro.self,
    ]
}
