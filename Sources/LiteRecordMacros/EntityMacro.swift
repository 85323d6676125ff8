import SwiftDiagnostics
public import SwiftSyntax
import SwiftSyntaxBuilder
public import SwiftSyntaxMacros

/// `@Entity`: implements the `Entity` protocol for a final class.
///
/// - member: the protocol's members, reading straight into the backing
///   storage of each property;
/// - memberAttribute: `@_PersistedProperty(index:)` on each stored property,
///   which turns it into change-tracking accessors over that storage;
/// - extension: the `Entity` (and, where it applies, `DefaultInitializable`)
///   conformance, and `Equatable` (by identity) unless the class declares it.
public struct EntityMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        let model = EntityModel(node: node, declaration: declaration, lexicalContext: context.lexicalContext)
        for diagnostic in model.diagnostics { context.diagnose(diagnostic) }
        // Generating members for a broken declaration only buries the real
        // error under follow-up errors in code the user never wrote.
        guard !model.hasErrors else { return [] }
        return EntityMembers(model: model).declarations
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard let variable = member.as(VariableDeclSyntax.self), !variable.isStatic,
            variable.attributes.attribute(named: "_PersistedProperty") == nil,
            variable.attributes.attribute(named: "_RelationshipProperty") == nil,
            variable.attributes.attribute(named: "_InferredProperty") == nil,
            let name = variable.bindings.first?.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
        else { return [] }
        let model = EntityModel(node: node, declaration: declaration, lexicalContext: context.lexicalContext)
        guard !model.hasErrors else { return [] }
        if let index = model.relationships.firstIndex(where: { $0.propertyName == name }) {
            return ["@_RelationshipProperty(index: \(raw: index))"]
        }
        if let position = model.inferred.firstIndex(where: { $0.propertyName == name }) {
            let attribute = model.attributeIndex(ofInferred: position)
            let relationship = model.relationshipIndex(ofInferred: position)
            return ["@_InferredProperty(attribute: \(raw: attribute), relationship: \(raw: relationship))"]
        }
        guard let index = model.properties.firstIndex(where: { $0.name == name }) else { return [] }
        return ["@_PersistedProperty(index: \(raw: index))"]
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        let model = EntityModel(node: node, declaration: declaration, lexicalContext: context.lexicalContext)
        guard !model.hasErrors else { return [] }
        // `protocols` lists only the conformances the type does not declare yet.
        let missing = Set(protocols.map { $0.trimmedDescription.split(separator: ".").last.map(String.init) ?? "" })
        var conformances: [String] = []
        if missing.contains("Entity") { conformances.append("LiteRecord.Entity") }
        if missing.contains("DefaultInitializable"), model.isDefaultInitializable {
            conformances.append("LiteRecord.DefaultInitializable")
        }
        // Equal when identical (see `Equatable where Self: Entity`), which is
        // what lets a predicate test a relationship: `$0.author == nil`.
        // A class with its own equality (declared `Equatable`, `Hashable` or
        // `Comparable`, or an `==` of its own) keeps it: adding `Equatable`
        // again would make the two `==` compete.
        if missing.contains("Equatable"), !model.declaresEquality { conformances.append("Swift.Equatable") }
        if !missing.isDisjoint(with: ["ObservableRecord", "Observable"]) {
            conformances.append("LiteRecord.ObservableRecord")
        }
        guard !conformances.isEmpty else { return [] }
        let decl: DeclSyntax = "nonisolated extension \(type.trimmed): \(raw: conformances.joined(separator: ", ")) {}"
        guard let ext = decl.as(ExtensionDeclSyntax.self) else { return [] }
        return [ext]
    }
}

/// The members `@Entity` adds to a class, as source text.
struct EntityMembers {
    let model: EntityModel

    private var access: String { model.access.memberModifier }
    private var coding: String { "LiteRecord.AttributeCoding" }

    var declarations: [DeclSyntax] {
        var result: [DeclSyntax] = [
            // The context's bookkeeping, stored in the object (one allocation
            // per object) and changed in place through the setter's `_modify`;
            // unsafe(context-confined): only the object's context touches it,
            // and the runtime's exclusivity check would cost more than the work.
            "@exclusivity(unchecked) \(raw: access)var recordState = LiteRecord.RecordState()",
            "\(raw: access)static let entityName = \(raw: model.entityName.quoted)",
        ]
        if let originalName = model.originalName {
            result.append("\(raw: access)static let entityOriginalName: String? = \(raw: originalName.quoted)")
        }
        result.append("\(raw: access)static let tracksChanges = true")
        if !model.saveHooks.isEmpty, !model.declaresSaveHooks {
            let hooks = model.saveHooks.map { "." + $0 }.joined(separator: ", ")
            result.append("\(raw: access)static let saveHooks: LiteRecord.SaveHooks = [\(raw: hooks)]")
        }
        result.append(attributes)
        result.append(initFromRow)
        if model.generatesDefaultInit {
            result.append("\(raw: access)init() {}")
        }
        result.append(encodeAttribute)
        result.append(decodeAttribute)
        result.append(attributeIndex)
        result.append(memberKeyPath)
        if !model.relationships.isEmpty || !model.inferred.isEmpty {
            result.append(relationships)
            result.append(relationshipIndex)
            result.append(settleRelationships)
            result.append(observeRelationshipMutation)
        }
        return result
    }

    /// `LiteRecord.EntityMember.attributeCount(Author?.self) == 1`: whether
    /// an inferred property turned out to be a column (a constant to the
    /// optimizer).
    private func isColumn(_ property: InferredProperty) -> String {
        "LiteRecord.EntityMember.attributeCount(\(property.typeExpression)) == 1"
    }

    private func isRelationship(_ property: InferredProperty) -> String {
        "LiteRecord.EntityMember.relationshipCount(\(property.typeExpression)) == 1"
    }

    /// Each inferred property with its attribute and relationship index expressions.
    private var inferred: [(property: InferredProperty, attribute: String, relationship: String)] {
        model.inferred.indices.map {
            (model.inferred[$0], model.attributeIndex(ofInferred: $0), model.relationshipIndex(ofInferred: $0))
        }
    }

    /// `list`, followed by the inferred entries that are not `nil`.
    private func withInferred(_ list: String, _ entries: [String]) -> String {
        guard !entries.isEmpty else { return list }
        return list + " + [\n" + entries.map { $0 + ",\n" }.joined() + "].compactMap {\n$0\n}"
    }

    private var relationships: DeclSyntax {
        let entries = model.relationships.map { relationship in
            var arguments = [
                relationship.name.quoted,
                "\(relationship.isToMany ? "toMany" : "toOne"): \(relationship.destination).self",
            ]
            if let inverse = relationship.inverse { arguments.append("inverse: \(inverse.quoted)") }
            if let rule = relationship.deleteRule { arguments.append("deleteRule: .\(rule)") }
            if let originalName = relationship.originalName { arguments.append("originalName: \(originalName.quoted)") }
            if let minimum = relationship.minimumCount { arguments.append("minimumCount: \(minimum)") }
            if let maximum = relationship.maximumCount { arguments.append("maximumCount: \(maximum)") }
            return "LiteRecord.RelationshipDescription(\n\(arguments.joined(separator: ",\n"))\n)"
        }
        let list = entries.isEmpty ? "[]" : "[\n" + entries.map { $0 + ",\n" }.joined() + "]"
        let inferred = model.inferred.map {
            "LiteRecord.EntityMember.relationship(\($0.name.quoted), \($0.typeExpression))"
        }
        return "\(raw: access)static let relationships: [LiteRecord.RelationshipDescription] = \(raw: withInferred(list, inferred))"
    }

    private var relationshipIndex: DeclSyntax {
        var cases = model.relationships.enumerated().map { index, relationship in
            "case \\\(model.className).\(relationship.propertyName):\n\(index)\n"
        }
        cases += inferred.map { property, _, index in
            "case \\\(model.className).\(property.propertyName) where \(isRelationship(property)):\n\(index)\n"
        }
        return """
            \(raw: access)static func relationshipIndex(for keyPath: PartialKeyPath<\(raw: model.className)>) -> Int? {
            switch keyPath {
            \(raw: cases.joined())default:
            nil
            }
            }
            """
    }

    /// Applies the values initializers left aside (see `RelationshipPropertyMacro`).
    private var settleRelationships: DeclSyntax {
        var lines = model.relationships.map { relationship in
            "if \(relationship.storageName) != nil {\n_ = \(relationship.propertyName)\n}"
        }
        lines += inferred.map { property, _, index in
            "settleMember(LiteRecord.EntityMember.takePending(&\(property.storageName)), relationship: \(index))"
        }
        return "\(raw: access)func settleRelationships() {\n\(raw: lines.joined(separator: "\n"))\n}"
    }

    /// Tells Observation about relationship changes made without the setter
    /// (an inverse kept up to date, a merge, a rollback).
    private var observeRelationshipMutation: DeclSyntax {
        var cases = model.relationships.enumerated().map { index, relationship in
            "case \(index):\nwithObservedMutation(of: \\\(model.className).\(relationship.propertyName), member: .relationship(\(index)), mutation)\n"
        }
        cases += inferred.map { property, _, index in
            "case \(index) where \(isRelationship(property)):\n"
                + "withObservedMutation(of: \\\(model.className).\(property.propertyName), member: .relationship(\(index)), mutation)\n"
        }
        return """
            \(raw: access)func observeRelationshipMutation(at index: Int, _ mutation: () -> Void) {
            switch index {
            \(raw: cases.joined())default:
            mutation()
            }
            }
            """
    }

    private var attributes: DeclSyntax {
        let entries = model.properties.map { property in
            var arguments = [
                property.columnName.quoted,
                "type: \(typeCall(property))",
            ]
            if property.type.isOptional { arguments.append("isOptional: true") }
            if !property.options.isEmpty {
                arguments.append("options: [\(property.options.map { "." + $0 }.joined(separator: ", "))]")
            }
            if let originalName = property.originalName { arguments.append("originalName: \(originalName.quoted)") }
            if let initializer = property.initializer {
                arguments.append("defaultValue: {\ntry \(encodeCall(property, typedValue(initializer, property)))\n}")
            }
            if let importKey = property.importKey { arguments.append("importKey: \(importKey.quoted)") }
            if let dateFormat = property.dateFormat { arguments.append("dateFormat: \(dateFormat)") }
            if let weight = property.searchWeight { arguments.append("searchWeight: \(weight)") }
            return "LiteRecord.AttributeDescription(\n\(arguments.joined(separator: ",\n"))\n)"
        }
        let list = entries.isEmpty ? "[]" : "[\n" + entries.map { $0 + ",\n" }.joined() + "]"
        let inferred = model.inferred.map { property in
            var arguments = [property.name.quoted, property.typeExpression]
            if let initializer = property.initializer {
                arguments.append("defaultValue: {\n\(typedValue(initializer, type: property.type, isInferred: false))\n}")
            }
            return "LiteRecord.EntityMember.attribute(\(arguments.joined(separator: ", ")))"
        }
        return "\(raw: access)static let attributes: [LiteRecord.AttributeDescription] = \(raw: withInferred(list, inferred))"
    }

    private var initFromRow: DeclSyntax {
        var body = model.properties.enumerated().map { index, property in
            "\(property.storageName) = \(decodeCall(property, index))"
        }
        body += inferred.map { property, index, _ in
            "\(property.storageName) = \(decodeCall(property, index))"
        }
        let block = body.isEmpty ? "{}" : "{\n\(body.joined(separator: "\n"))\n}"
        return "\(raw: access)init(row: LiteRecord.Row) throws \(raw: block)"
    }

    private var encodeAttribute: DeclSyntax {
        var cases = model.properties.enumerated().map { index, property in
            "case \(index):\ntry \(encodeCall(property, property.storageName))\n"
        }
        cases += inferred.map { property, index, _ in
            "case \(index) where \(isColumn(property)):\ntry LiteRecord.EntityMember.encode(\(property.storageName))\n"
        }
        return """
            \(raw: access)func encodeAttribute(at index: Int) throws -> LiteRecord.SQLValue {
            switch index {
            \(raw: cases.joined())default:
            .null
            }
            }
            """
    }

    private var decodeAttribute: DeclSyntax {
        // A merge, refresh or rollback writes the storage directly: observers
        // hear of the values that differ.
        var cases = model.properties.enumerated().map { index, property in
            let storage = property.storageName
            return "case \(index):\nlet value = \(decodeCall(property, index))\n"
                + "storeObserved(\\\(model.className).\(property.name), member: .attribute(\(index)), \(coding).isChange(\(storage), value)) {\n"
                + "\(storage) = value\n}\n"
        }
        cases += inferred.map { property, index, _ in
            let storage = property.storageName
            return "case \(index) where \(isColumn(property)):\nlet value = \(decodeCall(property, index))\n"
                + "storeObserved(\\\(model.className).\(property.propertyName), member: .attribute(\(index)), \(coding).isChange(\(storage), value)) {\n"
                + "\(storage) = value\n}\n"
        }
        return """
            \(raw: access)func decodeAttribute(at index: Int, from row: LiteRecord.Row) throws {
            switch index {
            \(raw: cases.joined())default:
            break
            }
            }
            """
    }

    private var attributeIndex: DeclSyntax {
        var cases = model.properties.enumerated().map { index, property in
            "case \\\(model.className).\(property.name):\n\(index)\n"
        }
        cases += inferred.map { property, index, _ in
            "case \\\(model.className).\(property.propertyName) where \(isColumn(property)):\n\(index)\n"
        }
        return """
            \(raw: access)static func attributeIndex(for keyPath: PartialKeyPath<\(raw: model.className)>) -> Int? {
            switch keyPath {
            \(raw: cases.joined())default:
            nil
            }
            }
            """
    }

    /// The key paths a key path through to-one relationships is made of
    /// (`\Book.author` then `\Author?.?.name`), so that a sort descriptor
    /// on `\Book.author?.name` can be taken apart into names.
    private var memberKeyPath: DeclSyntax {
        let toOnes = model.relationships.filter { !$0.isToMany }
        var cases = toOnes.map { relationship in
            "case (\(relationship.name.quoted), false):\n\\\(model.className).\(relationship.propertyName)\n"
        }
        cases += model.properties.map { property in
            "case (\(property.columnName.quoted), true):\n\\\(model.className)?.?.\(property.name)\n"
        }
        cases += toOnes.map { relationship in
            "case (\(relationship.name.quoted), true):\n\\\(model.className)?.?.\(relationship.propertyName)\n"
        }
        // An inferred `D?` is a to-one or a column: either way `\\C?.?.name`
        // reaches it; `\\C.name` is for a to-one only. An inferred `[D]` is
        // a to-many (no key path) or a column.
        for property in model.inferred {
            let name = property.name.quoted
            if property.isArray {
                cases.append("case (\(name), true) where \(isColumn(property)):\n\\\(model.className)?.?.\(property.propertyName)\n")
            } else {
                cases.append("case (\(name), false) where \(isRelationship(property)):\n\\\(model.className).\(property.propertyName)\n")
                cases.append("case (\(name), true):\n\\\(model.className)?.?.\(property.propertyName)\n")
            }
        }
        return """
            \(raw: access)static func memberKeyPath(named name: String, throughOptional: Bool) -> AnyKeyPath? {
            switch (name, throughOptional) {
            \(raw: cases.joined())default:
            nil
            }
            }
            """
    }

    // MARK: Calls

    private func decodeCall(_ property: InferredProperty, _ index: String) -> String {
        "try LiteRecord.EntityMember.decode(\(property.typeExpression), from: row, at: \(index))"
    }

    /// The property's coder, when it has one (`PersistedProperty.coderName`).
    private func coder(_ property: PersistedProperty) -> String? {
        property.coderName.map { "\(model.className).\($0)" }
    }

    private func typeCall(_ property: PersistedProperty) -> String {
        if let coder = coder(property) { return "\(coder).attributeType" }
        return "\(coding).type(of: \(property.type.wrapped).self)"
    }

    private func decodeCall(_ property: PersistedProperty, _ index: Int) -> String {
        let function = property.type.isOptional ? "decodeOptional" : "decode"
        if let coder = coder(property) { return "try \(coder).\(function)(from: row, at: \(index))" }
        return "try row.\(function)(\(property.type.wrapped).self, at: \(index))"
    }

    private func encodeCall(_ property: PersistedProperty, _ value: String) -> String {
        let function = property.type.isOptional ? "encodeOptional" : "encode"
        return "\(coder(property) ?? coding).\(function)(\(value))"
    }

    /// The initial value as an expression of the property's type: an
    /// annotated property's value may need its type as context (`.red`,
    /// `[]`, `nil`); an inferred one has that type by itself.
    private func typedValue(_ initializer: ExprSyntax, _ property: PersistedProperty) -> String {
        typedValue(initializer, type: property.type.declared, isInferred: property.typeIsInferred)
    }

    private func typedValue(_ initializer: ExprSyntax, type: String, isInferred: Bool) -> String {
        if isInferred || TypeAnalysis.inferredType(of: initializer) == type {
            return initializer.trimmedDescription
        }
        let isSimple: Bool
        switch initializer.kind {
        case .integerLiteralExpr, .floatLiteralExpr, .stringLiteralExpr, .booleanLiteralExpr, .nilLiteralExpr,
            .declReferenceExpr, .memberAccessExpr, .functionCallExpr, .arrayExpr, .dictionaryExpr, .tupleExpr:
            isSimple = true
        default:
            isSimple = false
        }
        let value = isSimple ? initializer.trimmedDescription : "(\(initializer.trimmedDescription))"
        return "\(value) as \(type)"
    }
}
