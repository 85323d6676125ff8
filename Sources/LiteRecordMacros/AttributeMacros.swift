import SwiftDiagnostics
public import SwiftSyntax
public import SwiftSyntaxMacros

/// `@Attribute(...)`: a marker read by `@Entity`; it generates nothing. It
/// checks where it is written and its own arguments, so that misuse is
/// reported at the attribute even outside an `@Entity` class.
public struct AttributeMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        for (expression, message) in AttributeArguments(node).invalid {
            context.diagnose(Diagnostic(node: expression, message: message))
        }
        guard let variable = declaration.as(VariableDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: EntityDiagnostic.notOnVariable(macro: "Attribute")))
            return []
        }
        let name = variable.firstName
        let removal = FixIt.remove(node, from: variable, macro: "Attribute")
        if variable.isStatic {
            context.diagnose(Diagnostic(node: node, message: EntityDiagnostic.attributeOnStaticProperty(name: name), fixIts: [removal]))
        } else if variable.bindings.contains(where: \.isComputed) {
            context.diagnose(Diagnostic(node: node, message: EntityDiagnostic.attributeOnComputedProperty(name: name), fixIts: [removal]))
        } else if variable.attributes.attribute(named: "Transient") != nil {
            context.diagnose(Diagnostic(node: node, message: EntityDiagnostic.attributeWithTransient(name: name), fixIts: [removal]))
        }
        return []
    }
}

/// `@Transient`: a marker read by `@Entity`; it generates nothing.
public struct TransientMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: EntityDiagnostic.notOnVariable(macro: "Transient")))
            return []
        }
        let name = variable.firstName
        if variable.isStatic || variable.bindings.allSatisfy(\.isComputed) {
            context.diagnose(
                Diagnostic(
                    node: node, message: EntityDiagnostic.transientOnComputedProperty(name: name),
                    fixIts: [FixIt.remove(node, from: variable, macro: "Transient")]))
            return []
        }
        // `init(row:)` runs none of the class's initializers, so a transient
        // property must get its value from its declaration.
        for binding in variable.bindings where !binding.isComputed && !EntityModel.hasDefault(binding, in: variable) {
            let bindingName = binding.pattern.trimmedDescription
            var fixIts: [FixIt] = []
            if binding.typeAnnotation != nil {
                let withDefault = binding.with(
                    \.initializer,
                    InitializerClauseSyntax(
                        equal: .equalToken(leadingTrivia: .space, trailingTrivia: .space),
                        value: ExprSyntax(EditorPlaceholderExprSyntax(placeholder: .identifier("<#value#>"))))
                )
                .with(\.typeAnnotation, binding.typeAnnotation?.with(\.trailingTrivia, []))
                fixIts.append(
                    FixIt(
                        message: EntityFixIt.addDefaultValue,
                        changes: [.replace(oldNode: Syntax(binding), newNode: Syntax(withDefault))]))
            }
            context.diagnose(
                Diagnostic(
                    node: binding.pattern, message: EntityDiagnostic.transientNeedsDefault(name: bindingName), fixIts: fixIts))
        }
        return []
    }
}

extension FixIt {
    /// Removes an attribute from a declaration, keeping the declaration's
    /// indentation.
    static func remove(_ attribute: AttributeSyntax, from variable: VariableDeclSyntax, macro: String) -> FixIt {
        var attributes = variable.attributes
        // The macro receives the attribute and the declaration as separate
        // copies, so the attribute is found by its text, not its identity.
        if let index = attributes.firstIndex(where: { element in
            guard case .attribute(let candidate) = element else { return false }
            return candidate.trimmedDescription == attribute.trimmedDescription
        }) {
            attributes.remove(at: index)
        }
        let trimmed = variable.with(\.attributes, attributes).with(\.leadingTrivia, variable.leadingTrivia)
        return FixIt(
            message: EntityFixIt.removeAttribute(macro: macro),
            changes: [.replace(oldNode: Syntax(variable), newNode: Syntax(trimmed))])
    }
}
