public import SwiftSyntax
import SwiftSyntaxBuilder
public import SwiftSyntaxMacros

/// `@_InferredProperty(attribute:relationship:)`, added by `@Entity` to each
/// stored property whose spelling does not tell a column from a relationship
/// (`var author: Author?`, `var books: [Book]`, `var priority: Priority?`).
/// The accessors call `LiteRecord.EntityMember` overloads and a test of
/// `relationshipCount`, so the compiler, which sees the conformances, makes
/// the choice; `attribute:` and `relationship:` are the indexes the property
/// has as a column and as a relationship (only one of them is used).
///
/// - Column: as `@_PersistedProperty`: the storage holds the value, the
///   setter ignores an equal value and reports a different one.
/// - Relationship: as `@_RelationshipProperty`: the storage holds only what
///   an initializer assigned before the object was fully initialized, and
///   the accessors go through the object's context.
///
/// No access to the storage lasts across a call into the context, which
/// may insert the object and so settle its relationships.
public struct InferredPropertyMacro: AccessorMacro, PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let property = Property(declaration), let indexes = Indexes(node) else { return [] }
        let storage = property.storageName
        return [
            StoredAccessors.initializer(storage),
            """
            get {
                let value = relatedMember(LiteRecord.EntityMember.takePending(&\(raw: storage)), relationship: \(raw: indexes.relationship)) ?? \(raw: storage)
                observationAccess(\\.\(raw: property.name), member: LiteRecord.EntityMember.relationshipCount(\(raw: property.type).self) == 1 ? .relationship(\(raw: indexes.relationship)) : .attribute(\(raw: indexes.attribute)))
                return value
            }
            """,
            StoredAccessors.columnSetter(
                storage: storage, property: property.name, index: indexes.attribute,
                preamble: """
                        if LiteRecord.EntityMember.relationshipCount(\(property.type).self) == 1 {
                            _ = LiteRecord.EntityMember.takePending(&\(storage))
                            setRelatedMember(newValue, relationship: \(indexes.relationship))
                            return
                        }

                    """),
        ]
    }

    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let property = Property(declaration), Indexes(node) != nil else { return [] }
        return ["private var \(raw: property.storageName): \(raw: property.storageType)"]
    }

    /// The `attribute:` and `relationship:` expressions, as written.
    private struct Indexes {
        var attribute: String
        var relationship: String

        init?(_ node: AttributeSyntax) {
            let arguments = node.argumentList
            guard let attribute = arguments.first(where: { $0.label?.text == "attribute" }),
                let relationship = arguments.first(where: { $0.label?.text == "relationship" })
            else { return nil }
            self.attribute = attribute.expression.trimmedDescription
            self.relationship = relationship.expression.trimmedDescription
        }
    }

    /// The parts of a single-binding, annotated stored `var` that the expansion needs.
    private struct Property {
        var name: String
        var storageName: String
        var type: String
        /// The storage's spelling of `type` (see `TypeAnalysis.storageType`).
        var storageType: String

        init?(_ declaration: some DeclSyntaxProtocol) {
            guard let variable = declaration.as(VariableDeclSyntax.self), !variable.isLet, !variable.isStatic,
                variable.bindings.count == 1, let binding = variable.bindings.first,
                binding.accessorBlock == nil,
                let identifier = binding.pattern.as(IdentifierPatternSyntax.self),
                let annotation = binding.typeAnnotation
            else { return nil }
            type = annotation.type.trimmedDescription
            storageType = TypeAnalysis.storageType(annotation.type)
            name = identifier.identifier.text
            storageName = "_" + identifier.identifier.text.withoutBackticks
        }
    }
}
