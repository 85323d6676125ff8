public import SwiftSyntax
import SwiftSyntaxBuilder
public import SwiftSyntaxMacros

/// `@_PersistedProperty(index:)`, added by `@Entity` to each stored property:
/// turns it into accessors over a private backing property, like
/// `@Observable` does.
///
/// - The `init` accessor lets the class's own initializers assign the
///   property before everything is initialized.
/// - The getter registers the read with Observation (when the object is
///   observable) and the setter tells Observation about the change.
/// - The setter ignores a value equal to the current one and otherwise
///   reports the attribute to the object's context. Before insertion (an
///   initializer assigning its properties) the report is ignored by
///   `RecordState`, so such assignments are not updates.
/// - `@Entity`'s `init(row:)` and `decodeAttribute(at:from:)` write the backing
///   property directly, so reading from the store is never a change.
public struct PersistedPropertyMacro: AccessorMacro, PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let property = Property(declaration), let index = node.storageIndex else { return [] }
        let storage = property.storageName
        return [
            StoredAccessors.initializer(storage),
            """
            get {
                observationAccess(\\.\(raw: property.name), member: .attribute(\(raw: index)))
                return \(raw: storage)
            }
            """,
            StoredAccessors.columnSetter(storage: storage, property: property.name, index: "\(index)"),
        ]
    }

    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let property = Property(declaration), node.storageIndex != nil else { return [] }
        // No initial value here: the property's own initial value reaches the
        // storage through the `init` accessor (`T?` is spelled `Optional<T>`,
        // see `TypeAnalysis.storageType`).
        var peers: [DeclSyntax] = ["private var \(raw: property.storageName): \(raw: property.type)"]
        // Next to the property, so that a type LiteRecord cannot store is
        // reported with this property's line (see `TypeAnalysis.coderName`).
        // `nonisolated`: the encoding runs wherever the object's context does,
        // whatever the project's default isolation.
        if let coder = TypeAnalysis.coderName(column: property.columnName, wrapped: property.wrapped) {
            peers.append(
                """
                nonisolated private static let \(raw: coder): some LiteRecord.AttributeCoding.AttributeCoder<\(raw: property.wrapped)> = \
                LiteRecord.AttributeCoding.coder(for: \(raw: property.wrapped).self)
                """)
        }
        return peers
    }

    /// The parts of a single-binding stored `var` that the expansion needs.
    private struct Property {
        var name: String
        var storageName: String
        var columnName: String
        var type: String
        /// The type without its optional: what the coder is for.
        var wrapped: String

        init?(_ declaration: some DeclSyntaxProtocol) {
            guard let variable = declaration.as(VariableDeclSyntax.self), !variable.isLet, !variable.isStatic,
                variable.bindings.count == 1, let binding = variable.bindings.first,
                binding.accessorBlock == nil,
                let identifier = binding.pattern.as(IdentifierPatternSyntax.self)
            else { return nil }
            if let annotation = binding.typeAnnotation {
                // `@Entity` attaches this macro only to a type it found supported.
                guard case .supported(let stored) = TypeAnalysis.verdict(for: annotation.type) else { return nil }
                type = TypeAnalysis.storageType(annotation.type)
                wrapped = stored.wrapped
            } else if let value = binding.initializer?.value, let inferred = TypeAnalysis.inferredType(of: value) {
                type = inferred
                wrapped = inferred
            } else {
                return nil
            }
            name = identifier.identifier.text
            columnName = identifier.identifier.text.withoutBackticks
            storageName = "_" + columnName
        }
    }
}
