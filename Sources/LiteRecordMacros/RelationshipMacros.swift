import SwiftDiagnostics
public import SwiftSyntax
import SwiftSyntaxBuilder
public import SwiftSyntaxMacros

/// `@Relationship(...)`: a marker read by `@Entity`; it generates nothing. It
/// checks where it is written, so that misuse is reported at the attribute
/// even outside an `@Entity` class.
public struct RelationshipMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self), !variable.isStatic,
            !variable.bindings.contains(where: \.isComputed)
        else {
            context.diagnose(Diagnostic(node: node, message: EntityDiagnostic.notOnVariable(macro: "Relationship")))
            return []
        }
        return []
    }
}

/// `@_RelationshipProperty(index:)`, added by `@Entity` to each
/// `@Relationship` property: accessors that go through the object's context
/// (``Entity/relatedObject(at:seed:)``), and a private `_name` that keeps a
/// value an initializer assigned before the object was fully initialized.
public struct RelationshipPropertyMacro: AccessorMacro, PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let property = Property(declaration), let index = node.storageIndex else { return [] }
        let (storage, many) = (property.storageName, property.isToMany)
        return [
            StoredAccessors.initializer(storage),
            """
            get {
                let value = \(raw: many ? "relatedObjects" : "relatedObject")(at: \(raw: index), seed: &\(raw: storage))
                observationAccess(\\.\(raw: property.name), member: .relationship(\(raw: index)))
                return value
            }
            """,
            """
            set {
                \(raw: storage) = nil
                \(raw: many ? "setRelatedObjects" : "setRelatedObject")(newValue, at: \(raw: index))
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let property = Property(declaration), node.storageIndex != nil else { return [] }
        return ["private var \(raw: property.storageName): \(raw: property.type)?"]
    }

    private struct Property {
        var name: String
        var storageName: String
        var type: String
        var isToMany: Bool

        init?(_ declaration: some DeclSyntaxProtocol) {
            guard let variable = declaration.as(VariableDeclSyntax.self), variable.bindings.count == 1,
                let binding = variable.bindings.first, binding.accessorBlock == nil,
                let identifier = binding.pattern.as(IdentifierPatternSyntax.self),
                let annotation = binding.typeAnnotation,
                let shape = RelationshipShape(annotation.type)
            else { return nil }
            type = annotation.type.trimmedDescription
            isToMany = shape.isToMany
            name = identifier.identifier.text
            storageName = "_" + identifier.identifier.text.withoutBackticks
        }
    }
}

/// What a relationship property's type says: `D?` or `Optional<D>` is a
/// to-one of `D`, `[D]` or `Array<D>` a to-many.
struct RelationshipShape {
    var destination: String
    var isToMany: Bool

    init?(_ type: TypeSyntax) {
        let type = TypeAnalysis.unparenthesized(type)
        if let wrapped = TypeAnalysis.optionalWrapped(type) {
            guard let name = Self.entityName(wrapped) else { return nil }
            destination = name
            isToMany = false
        } else if let array = type.as(ArrayTypeSyntax.self) {
            guard let name = Self.entityName(array.element) else { return nil }
            destination = name
            isToMany = true
        } else if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == "Array",
            let argument = identifier.genericArgumentClause?.arguments.first,
            identifier.genericArgumentClause?.arguments.count == 1,
            case .type(let element) = argument.argument, let name = Self.entityName(element)
        {
            destination = name
            isToMany = true
        } else {
            return nil
        }
    }

    /// A plain (possibly qualified) type name without generic arguments.
    static func entityName(_ type: TypeSyntax) -> String? {
        let type = TypeAnalysis.unparenthesized(type)
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.genericArgumentClause == nil {
            return identifier.trimmedDescription
        }
        if let member = type.as(MemberTypeSyntax.self), member.genericArgumentClause == nil {
            return member.trimmedDescription
        }
        return nil
    }
}

/// A `@Relationship` property of an `@Entity` class.
struct RelationshipProperty {
    var name: String
    var propertyName: String
    var destination: String
    var isToMany: Bool
    var deleteRule: String?
    /// The inverse's property name, from the key path's last component.
    var inverse: String?
    var originalName: String?
    var minimumCount: String?
    var maximumCount: String?
    var node: Syntax

    var storageName: String { "_" + name }
}

extension EntityModel {
    /// Reads a `@Relationship` property, or diagnoses why it cannot be one.
    mutating func analyseRelationship(
        _ variable: VariableDeclSyntax, _ binding: PatternBindingSyntax, _ identifier: IdentifierPatternSyntax,
        _ attribute: AttributeSyntax
    ) {
        let name = identifier.identifier.text.withoutBackticks
        guard let annotation = binding.typeAnnotation else {
            report(binding.pattern, .relationshipNeedsType(name: name))
            return
        }
        let type = TypeAnalysis.unparenthesized(annotation.type)
        guard let shape = RelationshipShape(type) else {
            if let plain = RelationshipShape.entityName(type) {
                let optional = TypeSyntax(OptionalTypeSyntax(wrappedType: TypeSyntax(IdentifierTypeSyntax(name: .identifier(plain)))))
                    .with(\.trailingTrivia, annotation.type.trailingTrivia)
                report(
                    annotation.type, .toOneNotOptional(name: name, type: plain),
                    fixIt: FixIt(
                        message: EntityFixIt.makeOptional(type: plain),
                        changes: [.replace(oldNode: Syntax(annotation.type), newNode: Syntax(optional))]))
            } else {
                report(annotation.type, .relationshipType(name: name, type: annotation.type.trimmedDescription))
            }
            return
        }
        if let value = binding.initializer?.value {
            let isEmpty =
                shape.isToMany
                ? value.as(ArrayExprSyntax.self)?.elements.isEmpty == true
                : value.is(NilLiteralExprSyntax.self)
            if !isEmpty {
                report(value, .relationshipDefault(name: name, empty: shape.isToMany ? "[]" : "nil"))
                return
            }
        }
        var property = RelationshipProperty(
            name: name, propertyName: identifier.identifier.text, destination: shape.destination,
            isToMany: shape.isToMany, node: Syntax(identifier))
        for argument in attribute.argumentList {
            let expression = argument.expression
            switch argument.label?.text {
            case "deleteRule":
                guard let member = expression.as(MemberAccessExprSyntax.self),
                    ["nullify", "cascade", "deny", "noAction"].contains(member.declName.baseName.text)
                else {
                    report(expression, .invalidDeleteRule(text: expression.trimmedDescription))
                    continue
                }
                property.deleteRule = member.declName.baseName.text
            case "inverse":
                if expression.is(NilLiteralExprSyntax.self) { continue }
                guard let keyPath = expression.as(KeyPathExprSyntax.self), keyPath.components.count == 1,
                    let component = keyPath.components.first?.component.as(KeyPathPropertyComponentSyntax.self)
                else {
                    report(expression, .invalidInverse(text: expression.trimmedDescription))
                    continue
                }
                if let root = keyPath.root?.trimmedDescription, root != shape.destination {
                    report(expression, .inverseTypeMismatch(name: name, inverse: expression.trimmedDescription, destination: shape.destination))
                    continue
                }
                property.inverse = component.declName.baseName.text.withoutBackticks
            case "originalName":
                if expression.is(NilLiteralExprSyntax.self) { continue }
                guard let value = expression.plainStringLiteral, !value.isEmpty else {
                    report(expression, .invalidName(label: "originalName"))
                    continue
                }
                property.originalName = value
            case "minimumCount", "maximumCount":
                let label = argument.label?.text ?? ""
                if expression.is(NilLiteralExprSyntax.self) { continue }
                guard shape.isToMany else {
                    report(expression, .countOnToOne(name: name, label: label))
                    continue
                }
                guard let literal = expression.as(IntegerLiteralExprSyntax.self) else {
                    report(expression, .invalidCount(label: label))
                    continue
                }
                if label == "minimumCount" { property.minimumCount = literal.literal.text } else { property.maximumCount = literal.literal.text }
            default:
                break
            }
        }
        if property.destination == className.withoutBackticks, property.inverse == name {
            report(identifier, .selfInverse(name: name))
            return
        }
        relationships.append(property)
    }
}
