import SwiftDiagnostics
import SwiftSyntax

/// One stored property that becomes a column.
struct PersistedProperty {
    /// The name as written, possibly in backticks.
    var name: String
    /// The column name: the name without backticks.
    var columnName: String
    var type: StoredType
    var initializer: ExprSyntax?
    /// Whether `initializer` was the source of `type` (so it needs no `as`).
    var typeIsInferred: Bool
    var options: [String]
    var originalName: String?
    /// `importKey:` of `@Attribute`: where an import finds the value.
    var importKey: String?
    /// `dateFormat:` of `@Attribute`, as written (an `ImportDateFormat` expression).
    var dateFormat: String?
    /// The weight of `.searchable(weight:)`, as written (a number literal).
    var searchWeight: String?
    /// The property's name in the source, for diagnostics.
    var node: Syntax

    /// The backing storage generated next to the property.
    var storageName: String { "_" + columnName }
    /// The `static let` holding the property's coder, generated next to it
    /// when its type is not a built-in one (`TypeAnalysis.coderName`).
    var coderName: String? { TypeAnalysis.coderName(column: columnName, wrapped: type.wrapped) }
}

/// A stored property whose spelling does not tell a column from a
/// relationship: `D?`, `Optional<D>`, `[D]` or `Array<D>` where `D` is not a
/// built-in attribute type, without `@Attribute` or `@Relationship`. It is a
/// relationship when `D` is an entity and a column otherwise; the generated
/// code leaves that to the compiler (see `LiteRecord.EntityMember`).
struct InferredProperty {
    /// The name as written, possibly in backticks.
    var propertyName: String
    /// The column or relationship name: the name without backticks.
    var name: String
    /// The type as declared, e.g. `Author?`.
    var type: String
    /// `[D]`: a to-many or a list column; otherwise `D?`, a to-one or an
    /// optional column.
    var isArray: Bool
    var initializer: ExprSyntax?
    var node: Syntax

    var storageName: String { "_" + name }
    /// The type as an expression: `Author?.self`.
    var typeExpression: String { "\(type).self" }
}

/// Everything `@Entity` learns from a class declaration, and what is wrong
/// with it. Each macro role analyses the declaration afresh (roles run
/// independently); only the member role reports the diagnostics, so they
/// appear once.
struct EntityModel {
    var className = ""
    var access: AccessLevel = .internal
    var entityName = ""
    var originalName: String?
    var properties: [PersistedProperty] = []
    var relationships: [RelationshipProperty] = []
    /// Properties whose kind the compiler decides; their attribute indexes
    /// follow `properties`' and their relationship indexes `relationships'`.
    var inferred: [InferredProperty] = []
    /// Every stored property, persisted or transient, starts with a value
    /// without an initializer assigning it.
    var allPropertiesHaveDefaults = true
    var declaresInitializers = false
    /// An `init()` that can witness `DefaultInitializable.init()`.
    var hasUsableDefaultInit = false
    /// The save hooks the class body declares (`willSave`,
    /// `validateForSave`), as `SaveHooks` member names, in that order.
    var saveHooks: [String] = []
    /// The class declares `static var saveHooks` itself.
    var declaresSaveHooks = false
    /// The class declares its own equality: `Equatable`, `Hashable` or
    /// `Comparable` among its inherited types, or a `static func ==`.
    var declaresEquality = false
    var diagnostics: [Diagnostic] = []

    var hasErrors: Bool { diagnostics.contains { $0.diagMessage.severity == .error } }

    /// Whether the class becomes `DefaultInitializable`: an `init()` exists or
    /// is generated, and it can start every property at its default.
    var isDefaultInitializable: Bool {
        allPropertiesHaveDefaults && (hasUsableDefaultInit || !declaresInitializers)
    }

    /// Whether the macro must declare `init()` itself: its own `init(row:)`
    /// suppresses the one Swift would otherwise synthesize.
    var generatesDefaultInit: Bool { allPropertiesHaveDefaults && !declaresInitializers }

    /// The attribute index of `inferred[position]` as an expression: it
    /// follows the spelled attributes and the inferred properties before it
    /// that turn out to be columns.
    func attributeIndex(ofInferred position: Int) -> String {
        index(after: properties.count, counting: "attributeCount", position)
    }

    /// The relationship index of `inferred[position]` as an expression.
    func relationshipIndex(ofInferred position: Int) -> String {
        index(after: relationships.count, counting: "relationshipCount", position)
    }

    private func index(after base: Int, counting function: String, _ position: Int) -> String {
        let earlier = inferred[..<position].map { "LiteRecord.EntityMember.\(function)(\($0.typeExpression))" }
        return (["\(base)"] + earlier).joined(separator: " + ")
    }

    static let reservedColumnNames: Set<String> = ReservedNames.columns
    static let protocolMemberNames: Set<String> = ["recordState", "recordID", "context"]

    init(node: AttributeSyntax, declaration: some DeclGroupSyntax, lexicalContext: [Syntax] = []) {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            diagnose(node, .notAClass(kind: Self.kindDescription(declaration)))
            return
        }
        className = classDecl.name.text
        access = classDecl.modifiers.accessLevel ?? .internal
        if classDecl.modifiers.contains(.open) { access = .public }
        entityName = className.withoutBackticks
        readArguments(of: node)
        if !classDecl.modifiers.contains(.final) {
            diagnoseNotFinal(classDecl)
        }
        if classDecl.genericParameterClause != nil {
            diagnose(classDecl.name, .genericClass(className: className))
        }
        let inherited = Set(
            classDecl.inheritanceClause?.inheritedTypes.map {
                $0.type.trimmedDescription.split(separator: ".").last.map(String.init) ?? ""
            } ?? [])
        declaresEquality = !inherited.isDisjoint(with: ["Equatable", "Hashable", "Comparable"])
        checkPlacement(classDecl, lexicalContext: lexicalContext)
        for member in classDecl.memberBlock.members {
            analyse(member.decl)
        }
        checkColumnNames()
        checkStorageNames(classDecl.memberBlock.members)
    }

    /// Refuses a `Sendable` entity and one nested in a generic type, before
    /// the generated code fails with errors about storage the user never wrote.
    private mutating func checkPlacement(_ classDecl: ClassDeclSyntax, lexicalContext: [Syntax]) {
        for inherited in classDecl.inheritanceClause?.inheritedTypes ?? [] {
            let name = inherited.type.trimmedDescription.split(separator: ".").last.map(String.init) ?? ""
            if name == "Sendable" || name.hasSuffix(" Sendable") {
                diagnose(
                    inherited.type, .sendableEntity(className: className),
                    fixIt: Self.removeConformanceFixIt(classDecl, inherited))
            }
        }
        diagnoseImpliedEquatable(classDecl)
        for outer in lexicalContext {
            let generic: (name: String, isGeneric: Bool)? =
                if let type = outer.as(StructDeclSyntax.self) { (type.name.text, type.genericParameterClause != nil) } else if let type = outer.as(ClassDeclSyntax.self) {
                    (type.name.text, type.genericParameterClause != nil)
                } else if let type = outer.as(EnumDeclSyntax.self) { (type.name.text, type.genericParameterClause != nil) } else if let type = outer.as(ActorDeclSyntax.self) {
                    (type.name.text, type.genericParameterClause != nil)
                } else if let type = outer.as(ExtensionDeclSyntax.self) { (type.extendedType.trimmedDescription, type.genericWhereClause != nil) } else { nil }
            if let generic, generic.isGeneric {
                diagnose(classDecl.name, .nestedInGeneric(className: className, outer: generic.name))
                return
            }
        }
    }

    private static func kindDescription(_ declaration: some DeclGroupSyntax) -> String {
        if declaration.is(StructDeclSyntax.self) { return "a struct" }
        if declaration.is(EnumDeclSyntax.self) { return "an enum" }
        if declaration.is(ActorDeclSyntax.self) { return "an actor" }
        if declaration.is(ProtocolDeclSyntax.self) { return "a protocol" }
        if declaration.is(ExtensionDeclSyntax.self) { return "an extension" }
        return "this declaration"
    }

    // MARK: The attribute's arguments

    private mutating func readArguments(of node: AttributeSyntax) {
        for argument in node.argumentList {
            guard let label = argument.label?.text else { continue }
            guard let value = argument.expression.plainStringLiteral else {
                if !argument.expression.is(NilLiteralExprSyntax.self) {
                    diagnose(argument.expression, .invalidName(label: label))
                }
                continue
            }
            switch label {
            case "name":
                if value.isEmpty {
                    diagnose(argument.expression, .emptyEntityName)
                } else if value.lowercased().hasPrefix("sqlite_") || value.lowercased().hasPrefix("literecord_") {
                    diagnose(argument.expression, .reservedEntityName(name: value))
                } else {
                    entityName = value
                }
            case "originalName":
                if value.isEmpty {
                    diagnose(argument.expression, .emptyEntityName)
                } else {
                    originalName = value
                }
            default:
                break
            }
        }
    }

    /// Refuses a class that is `Hashable` or `Comparable` without naming
    /// `Equatable`: the macro's conformance list names `Equatable`, and Swift
    /// then looks for the implied conformance's `==` where the class does not
    /// declare it, failing with "does not conform to protocol 'Equatable'".
    private mutating func diagnoseImpliedEquatable(_ classDecl: ClassDeclSyntax) {
        let inherited = classDecl.inheritanceClause?.inheritedTypes ?? []
        let names = inherited.map { $0.type.trimmedDescription.split(separator: ".").last.map(String.init) ?? "" }
        guard !names.contains("Equatable"), let position = names.firstIndex(where: { $0 == "Hashable" || $0 == "Comparable" })
        else { return }
        let implying = Array(inherited)[position]
        let named = implying.type.with(
            \.leadingTrivia, implying.type.leadingTrivia + Trivia(pieces: [.unexpectedText("Equatable,"), .spaces(1)]))
        diagnose(
            implying.type, .equatableNotNamed(className: className, conformance: names[position]),
            fixIt: FixIt(message: EntityFixIt.nameEquatable, changes: [.replace(oldNode: Syntax(implying.type), newNode: Syntax(named))]))
    }

    private mutating func diagnoseNotFinal(_ classDecl: ClassDeclSyntax) {
        // `final` goes before `class`, after any other modifiers.
        let newKeyword = classDecl.classKeyword.with(
            \.leadingTrivia, classDecl.classKeyword.leadingTrivia + Trivia(pieces: [.unexpectedText("final"), .spaces(1)]))
        diagnose(
            classDecl.classKeyword, .classNotFinal(className: className),
            fixIt: FixIt(message: EntityFixIt.addFinal, changes: [.replace(oldNode: Syntax(classDecl.classKeyword), newNode: Syntax(newKeyword))]))
    }

    // MARK: Members

    private mutating func analyse(_ decl: DeclSyntax) {
        if let variable = decl.as(VariableDeclSyntax.self) {
            let names = variable.bindings.compactMap { $0.pattern.as(IdentifierPatternSyntax.self)?.identifier.text }
            if variable.isStatic, names.contains("saveHooks") { declaresSaveHooks = true }
            analyse(variable)
        } else if let initializer = decl.as(InitializerDeclSyntax.self) {
            noteInitializer(initializer)
        } else if let function = decl.as(FunctionDeclSyntax.self) {
            noteSaveHook(function)
            if function.name.text == "==", function.modifiers.contains(.static) { declaresEquality = true }
        } else if let conditional = decl.as(IfConfigDeclSyntax.self) {
            // A hook in any branch counts: refusing a set-based write the
            // hook would not have stopped is safe, skipping the hook is not.
            for clause in conditional.clauses {
                guard case .decls(let members) = clause.elements else { continue }
                for member in members {
                    if let function = member.decl.as(FunctionDeclSyntax.self) { noteSaveHook(function) }
                }
            }
            let hasStoredProperty = conditional.clauses.contains { clause in
                guard case .decls(let members) = clause.elements else { return false }
                return members.contains { member in
                    guard let variable = member.decl.as(VariableDeclSyntax.self), !variable.isStatic else { return false }
                    return variable.bindings.contains { !$0.isComputed }
                }
            }
            if hasStoredProperty { diagnose(conditional, .conditionalMembers) }
        }
    }

    /// Notes `func willSave()` or `func validateForSave()`: the entity's
    /// own save hooks, which `Entity.saveHooks` must list.
    private mutating func noteSaveHook(_ function: FunctionDeclSyntax) {
        guard !function.modifiers.contains(.static), !function.modifiers.contains(.class),
            function.signature.parameterClause.parameters.isEmpty
        else { return }
        let name = function.name.text.withoutBackticks
        guard name == "willSave" || name == "validateForSave", !saveHooks.contains(name) else { return }
        // In the order `SaveHooks` declares them, whatever the class's order.
        saveHooks = ["willSave", "validateForSave"].filter { $0 == name || saveHooks.contains($0) }
    }

    private mutating func noteInitializer(_ initializer: InitializerDeclSyntax) {
        let signature = initializer.signature
        // A convenience initializer delegates to a designated one (often the
        // `init()` generated here): only designated ones replace `init()`.
        if initializer.modifiers.contains(.convenience), !signature.parameterClause.parameters.isEmpty { return }
        declaresInitializers = true
        guard initializer.optionalMark == nil, signature.parameterClause.parameters.isEmpty,
            signature.effectSpecifiers == nil, initializer.genericParameterClause == nil
        else { return }
        // A protocol requirement's witness must be as visible as the type.
        let required = max(access, .fileprivate)
        if (initializer.modifiers.accessLevel ?? .internal) >= required {
            hasUsableDefaultInit = true
        } else if access >= .package {
            let keyword = access == .public ? "public" : "package"
            diagnose(
                initializer.initKeyword, .defaultInitNotVisible(className: className, access: keyword),
                fixIt: Self.makeVisibleFixIt(initializer, keyword: keyword))
        }
    }

    /// Takes `inherited` out of the class's inheritance list, and the list
    /// with it when it was the only entry.
    private static func removeConformanceFixIt(_ classDecl: ClassDeclSyntax, _ inherited: InheritedTypeSyntax) -> FixIt? {
        guard let clause = classDecl.inheritanceClause else { return nil }
        let message = EntityFixIt.removeConformance(name: inherited.type.trimmedDescription)
        var kept = Array(clause.inheritedTypes.filter { $0.id != inherited.id })
        guard let last = kept.indices.last else {
            let fixed = classDecl.with(\.inheritanceClause, nil)
                .with(\.name, classDecl.name.with(\.trailingTrivia, clause.trailingTrivia))
            return FixIt(message: message, changes: [.replace(oldNode: Syntax(classDecl), newNode: Syntax(fixed))])
        }
        if kept[last].trailingComma != nil {
            kept[last] = kept[last].with(\.trailingComma, nil).with(\.trailingTrivia, inherited.trailingTrivia)
        }
        let fixed = clause.with(\.inheritedTypes, InheritedTypeListSyntax(kept))
        return FixIt(message: message, changes: [.replace(oldNode: Syntax(clause), newNode: Syntax(fixed))])
    }

    /// Gives `init()` the class's access level: replaces its own access
    /// modifier, or puts one before `init`.
    private static func makeVisibleFixIt(_ initializer: InitializerDeclSyntax, keyword: String) -> FixIt {
        let message = EntityFixIt.makeInitVisible(access: keyword)
        let newKeyword: Keyword = keyword == "public" ? .public : .package
        if let modifier = initializer.modifiers.first(where: { $0.detail == nil && AccessLevel($0.name.tokenKind) != nil }) {
            let changed = modifier.with(\.name, modifier.name.with(\.tokenKind, .keyword(newKeyword)))
            return FixIt(message: message, changes: [.replace(oldNode: Syntax(modifier), newNode: Syntax(changed))])
        }
        let initKeyword = initializer.initKeyword
        let changed = initKeyword.with(
            \.leadingTrivia, initKeyword.leadingTrivia + Trivia(pieces: [.unexpectedText(keyword), .spaces(1)]))
        return FixIt(message: message, changes: [.replace(oldNode: Syntax(initKeyword), newNode: Syntax(changed))])
    }

    private mutating func analyse(_ variable: VariableDeclSyntax) {
        if variable.isStatic { return }
        let isTransient = variable.attributes.attribute(named: "Transient") != nil
        let storedBindings = variable.bindings.filter { !$0.isComputed }
        if storedBindings.isEmpty { return }

        if isTransient {
            // `@Transient` checks its own declaration; here it only matters
            // whether it starts with a value.
            for binding in storedBindings where !Self.hasDefault(binding, in: variable) {
                allPropertiesHaveDefaults = false
            }
            return
        }
        guard variable.bindings.count == 1, let binding = variable.bindings.first else {
            diagnose(variable, .multipleBindings)
            return
        }
        if let wrapper = Self.foreignAttribute(of: variable) {
            diagnose(
                wrapper, .propertyWrapper(name: binding.pattern.trimmedDescription.withoutBackticks, wrapper: wrapper.simpleName),
                fixIt: markTransientFixIt(variable, ifDefault: Self.hasDefault(binding, in: variable)))
            return
        }
        guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else {
            diagnose(binding.pattern, .unsupportedPattern)
            return
        }
        let name = identifier.identifier.text
        let columnName = name.withoutBackticks
        let relationship = variable.attributes.attribute(named: "Relationship")
        // A relationship needs no value to start: it starts empty.
        if relationship == nil, !Self.hasDefault(binding, in: variable) { allPropertiesHaveDefaults = false }

        if variable.isLet {
            diagnose(
                variable.bindingSpecifier, .storedLet(name: columnName),
                fixIt: FixIt(
                    message: EntityFixIt.replaceLetWithVar,
                    changes: [
                        .replace(
                            oldNode: Syntax(variable.bindingSpecifier),
                            newNode: Syntax(variable.bindingSpecifier.with(\.tokenKind, .keyword(.var))))
                    ]))
            return
        }
        if variable.modifiers.contains(.lazy) {
            diagnose(variable, .lazyProperty(name: columnName), fixIt: markTransientFixIt(variable))
            return
        }
        for kind in [Keyword.weak, .unowned] where variable.modifiers.contains(kind) {
            diagnose(variable, .referenceStorage(name: columnName, kind: "\(kind)"), fixIt: markTransientFixIt(variable))
            return
        }
        if binding.hasObservers {
            diagnose(variable, .propertyObservers(name: columnName))
            return
        }
        if Self.reservedColumnNames.contains(columnName.lowercased()) {
            diagnose(identifier, .reservedName(name: columnName))
            return
        }
        if Self.protocolMemberNames.contains(columnName) {
            diagnose(identifier, .protocolMemberName(name: columnName))
            return
        }
        let attribute = variable.attributes.attribute(named: "Attribute")
        if let relationship, let attribute {
            // Neither can be guessed away: a column and a relationship are
            // stored and queried differently.
            diagnostics.append(
                Diagnostic(
                    node: identifier, message: EntityDiagnostic.attributeAndRelationship(name: columnName),
                    fixIts: [
                        FixIt.remove(attribute, from: variable, macro: "Attribute"),
                        FixIt.remove(relationship, from: variable, macro: "Relationship"),
                    ]))
            return
        }
        if let relationship {
            analyseRelationship(variable, binding, identifier, relationship)
            return
        }
        if attribute == nil, let annotation = binding.typeAnnotation, let shape = RelationshipShape(annotation.type),
            !TypeAnalysis.isBuiltInAttributeType(shape.destination)
        {
            inferred.append(
                InferredProperty(
                    propertyName: name, name: columnName, type: annotation.type.trimmedDescription,
                    isArray: shape.isToMany, initializer: binding.initializer?.value, node: Syntax(identifier)))
            return
        }
        guard let (type, inferred) = storedType(of: binding, in: variable, name: columnName) else { return }

        let arguments = attribute.map(AttributeArguments.init)
        properties.append(
            PersistedProperty(
                name: name, columnName: columnName, type: type,
                initializer: binding.initializer?.value, typeIsInferred: inferred,
                options: arguments?.options ?? [],
                originalName: arguments?.originalName,
                importKey: arguments?.importKey, dateFormat: arguments?.dateFormat,
                searchWeight: arguments?.searchWeight,
                node: Syntax(identifier)))
        if let arguments, arguments.options.contains("searchable"),
            !["String", "Swift.String"].contains(type.wrapped.filter { !$0.isWhitespace })
        {
            diagnose(identifier, .searchableNotText(name: columnName, type: type.declared))
        }
    }

    /// The first custom attribute of a stored property that is not
    /// LiteRecord's: a property wrapper or another macro, whose accessors
    /// would fight the ones `@Entity` generates. Global actors pass.
    static func foreignAttribute(of variable: VariableDeclSyntax) -> AttributeSyntax? {
        let own: Set<String> = ["Attribute", "Relationship", "Transient", "_PersistedProperty", "_RelationshipProperty", "_InferredProperty"]
        for element in variable.attributes {
            guard case .attribute(let attribute) = element else { continue }
            let name = attribute.simpleName
            guard let first = name.first, first.isUppercase, !own.contains(name), !name.hasSuffix("Actor") else { continue }
            return attribute
        }
        return nil
    }

    /// Whether a binding has a value before any initializer runs: an initial
    /// value, or `nil` for a `var` spelled `T?`.
    static func hasDefault(_ binding: PatternBindingSyntax, in variable: VariableDeclSyntax) -> Bool {
        if binding.initializer != nil { return true }
        guard !variable.isLet, let type = binding.typeAnnotation?.type else { return false }
        let bare = TypeAnalysis.unparenthesized(type)
        return bare.is(OptionalTypeSyntax.self) || bare.is(ImplicitlyUnwrappedOptionalTypeSyntax.self)
    }

    private mutating func storedType(
        of binding: PatternBindingSyntax, in variable: VariableDeclSyntax, name: String
    ) -> (StoredType, inferred: Bool)? {
        if let annotation = binding.typeAnnotation {
            switch TypeAnalysis.verdict(for: annotation.type) {
            case .supported(let type):
                return (type, false)
            case .unsupported(let reason):
                diagnose(
                    annotation.type,
                    .unsupportedType(name: name, type: annotation.type.trimmedDescription, reason: reason),
                    fixIt: markTransientFixIt(variable, ifDefault: Self.hasDefault(binding, in: variable)))
            case .implicitlyUnwrapped(let wrapped):
                let optional = TypeSyntax(OptionalTypeSyntax(wrappedType: TypeSyntax(IdentifierTypeSyntax(name: .identifier(wrapped)))))
                    .with(\.trailingTrivia, annotation.type.trailingTrivia)
                diagnose(
                    annotation.type, .implicitlyUnwrappedOptional(name: name, type: wrapped),
                    fixIt: FixIt(
                        message: EntityFixIt.makeOptional(type: wrapped),
                        changes: [.replace(oldNode: Syntax(annotation.type), newNode: Syntax(optional))]))
            case .nestedOptional:
                diagnose(annotation.type, .nestedOptional(name: name, type: annotation.type.trimmedDescription))
            }
            return nil
        }
        if let value = binding.initializer?.value, let inferred = TypeAnalysis.inferredType(of: value) {
            return (StoredType(declared: inferred, wrapped: inferred, isOptional: false, isImplicitlyNil: false), true)
        }
        let suggestion = binding.initializer.flatMap { TypeAnalysis.suggestedType(of: $0.value) }
        let annotated = binding.with(\.pattern, binding.pattern.with(\.trailingTrivia, []))
            .with(
                \.typeAnnotation,
                TypeAnnotationSyntax(
                    colon: .colonToken(trailingTrivia: .space),
                    type: TypeSyntax(
                        IdentifierTypeSyntax(
                            name: .identifier(suggestion ?? "<#Type#>"), trailingTrivia: binding.pattern.trailingTrivia))))
        diagnose(
            binding.pattern, .missingTypeAnnotation(name: name),
            fixIt: FixIt(
                message: suggestion.map { EntityFixIt.addTypeAnnotation(type: $0) } ?? EntityFixIt.addTypePlaceholder,
                changes: [.replace(oldNode: Syntax(binding), newNode: Syntax(annotated))]))
        return nil
    }

    private func markTransientFixIt(_ variable: VariableDeclSyntax, ifDefault: Bool = true) -> FixIt? {
        guard ifDefault else { return nil }
        return FixIt.markTransient(variable)
    }

    private mutating func checkColumnNames() {
        var seen: [String: String] = [:]
        let names =
            properties.map { ($0.columnName, $0.node) } + relationships.map { ($0.name, $0.node) }
            + inferred.map { ($0.name, $0.node) }
        for (name, node) in names {
            let key = name.lowercased()
            if let other = seen[key] {
                diagnose(node, .duplicateColumn(name: name, other: other))
            } else {
                seen[key] = name
            }
        }
    }

    /// Each property's backing storage is `_name`; a member of that name
    /// would be redeclared by the expansion.
    private mutating func checkStorageNames(_ members: MemberBlockItemListSyntax) {
        let storageNames = Set(properties.map(\.storageName) + relationships.map(\.storageName) + inferred.map(\.storageName))
        for member in members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            for binding in variable.bindings {
                guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else { continue }
                let name = identifier.identifier.text.withoutBackticks
                if storageNames.contains(name) {
                    diagnose(identifier, .storageNameClash(name: name, property: String(name.dropFirst())))
                }
            }
        }
    }

    // MARK: Reporting

    mutating func report(_ node: some SyntaxProtocol, _ message: EntityDiagnostic, fixIt: FixIt? = nil) {
        diagnose(node, message, fixIt: fixIt)
    }

    private mutating func diagnose(_ node: some SyntaxProtocol, _ message: EntityDiagnostic, fixIt: FixIt? = nil) {
        diagnostics.append(Diagnostic(node: node, message: message, fixIts: fixIt.map { [$0] } ?? []))
    }
}

extension FixIt {
    /// Puts `@Transient` in front of a declaration.
    static func markTransient(_ variable: VariableDeclSyntax) -> FixIt {
        let attribute = AttributeSyntax(
            atSign: .atSignToken(leadingTrivia: variable.leadingTrivia),
            attributeName: TypeSyntax(IdentifierTypeSyntax(name: .identifier("Transient"))),
            trailingTrivia: .space)
        var attributes = variable.attributes
        attributes.insert(.attribute(attribute), at: attributes.startIndex)
        let marked = variable.with(\.leadingTrivia, []).with(\.attributes, attributes)
        return FixIt(
            message: EntityFixIt.markTransient,
            changes: [.replace(oldNode: Syntax(variable), newNode: Syntax(marked))])
    }
}

/// The arguments of an `@Attribute(...)`, read from its spelling.
struct AttributeArguments {
    var options: [String] = []
    var originalName: String?
    var importKey: String?
    /// The `dateFormat:` expression's text, copied into the attribute
    /// description, where the compiler checks it.
    var dateFormat: String?
    /// The weight of `.searchable(weight:)`, as written (a number literal).
    var searchWeight: String?
    /// Arguments that are not what the macro understands.
    var invalid: [(node: ExprSyntax, message: EntityDiagnostic)] = []

    /// The text of a positive integer or float literal, else `nil`.
    static func positiveNumber(_ expression: ExprSyntax) -> String? {
        let text: String
        if let literal = expression.as(IntegerLiteralExprSyntax.self) {
            text = literal.literal.text
        } else if let literal = expression.as(FloatLiteralExprSyntax.self) {
            text = literal.literal.text
        } else {
            return nil
        }
        guard let value = Double(String(text.filter { $0 != "_" })), value > 0, value.isFinite else { return nil }
        return text
    }

    init(_ attribute: AttributeSyntax) {
        for argument in attribute.argumentList {
            if argument.label?.text == "originalName" {
                if let value = argument.expression.plainStringLiteral, !value.isEmpty {
                    originalName = value
                } else if !argument.expression.is(NilLiteralExprSyntax.self) {
                    invalid.append((argument.expression, .invalidName(label: "originalName")))
                }
                continue
            }
            if argument.label?.text == "importKey" {
                if let value = argument.expression.plainStringLiteral, !value.isEmpty,
                    !value.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty)
                {
                    importKey = value
                } else if !argument.expression.is(NilLiteralExprSyntax.self) {
                    invalid.append((argument.expression, .invalidImportKey))
                }
                continue
            }
            if argument.label?.text == "dateFormat" {
                if !argument.expression.is(NilLiteralExprSyntax.self) { dateFormat = argument.expression.trimmedDescription }
                continue
            }
            if let call = argument.expression.as(FunctionCallExprSyntax.self),
                let member = call.calledExpression.as(MemberAccessExprSyntax.self), member.base == nil,
                member.declName.baseName.text == "searchable", call.arguments.count == 1,
                call.arguments.first?.label?.text == "weight"
            {
                let weight = call.arguments.first!.expression
                if let value = Self.positiveNumber(weight) {
                    searchWeight = value
                    if !options.contains("searchable") { options.append("searchable") }
                } else {
                    invalid.append((weight, .invalidSearchWeight(text: weight.trimmedDescription)))
                }
            } else if let member = argument.expression.as(MemberAccessExprSyntax.self), member.base == nil,
                ["unique", "indexed", "searchable", "preserveValueOnDeletion"].contains(member.declName.baseName.text)
            {
                let option = member.declName.baseName.text
                if !options.contains(option) { options.append(option) }
            } else {
                invalid.append((argument.expression, .invalidAttributeOption(text: argument.expression.trimmedDescription)))
            }
        }
    }
}
