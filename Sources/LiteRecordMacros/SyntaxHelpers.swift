import SwiftSyntax

extension AttributeListSyntax {
    /// The attribute spelled `@name` or `@Module.name`, if present.
    func attribute(named name: String) -> AttributeSyntax? {
        for element in self {
            guard case .attribute(let attribute) = element else { continue }
            if attribute.simpleName == name { return attribute }
        }
        return nil
    }
}

extension AttributeSyntax {
    /// The attribute's name without a module qualifier.
    var simpleName: String {
        if let member = attributeName.as(MemberTypeSyntax.self) { return member.name.text }
        return attributeName.trimmedDescription
    }

    /// The arguments of an attribute written with parentheses.
    var argumentList: LabeledExprListSyntax {
        arguments?.as(LabeledExprListSyntax.self) ?? []
    }
}

extension DeclModifierListSyntax {
    func contains(_ keyword: Keyword) -> Bool {
        contains { $0.name.tokenKind == .keyword(keyword) }
    }

    /// The declared access level, ignoring `private(set)`-style setter modifiers.
    var accessLevel: AccessLevel? {
        for modifier in self where modifier.detail == nil {
            if let level = AccessLevel(modifier.name.tokenKind) { return level }
        }
        return nil
    }
}

/// Swift's access levels, ordered from most to least restrictive.
enum AccessLevel: Int, Comparable {
    case `private`, `fileprivate`, `internal`, `package`, `public`

    init?(_ token: TokenKind) {
        switch token {
        case .keyword(.private): self = .private
        case .keyword(.fileprivate): self = .fileprivate
        case .keyword(.internal): self = .internal
        case .keyword(.package): self = .package
        case .keyword(.public), .keyword(.open): self = .public
        default: return nil
        }
    }

    static func < (lhs: AccessLevel, rhs: AccessLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The modifier (with its trailing space) that generated members need so
    /// they can witness protocol requirements of a type at this level; empty
    /// where the default (internal) already suffices.
    var memberModifier: String {
        switch self {
        case .public: "public "
        case .package: "package "
        case .private, .fileprivate, .internal: ""
        }
    }
}

extension ExprSyntax {
    /// The value of a string literal without interpolations or escapes.
    var plainStringLiteral: String? {
        guard let literal = self.as(StringLiteralExprSyntax.self), literal.openingPounds == nil else { return nil }
        var text = ""
        for segment in literal.segments {
            guard let part = segment.as(StringSegmentSyntax.self) else { return nil }
            text += part.content.text
        }
        // Escapes would need unescaping to know the real value; names never need them.
        return text.contains("\\") ? nil : text
    }
}

extension String {
    /// An identifier without the backticks that make keywords usable as names.
    var withoutBackticks: String {
        hasPrefix("`") && hasSuffix("`") && count >= 2 ? String(dropFirst().dropLast()) : self
    }

    /// The text as a Swift string literal.
    var quoted: String {
        var text = "\""
        for character in self {
            switch character {
            case "\\": text += "\\\\"
            case "\"": text += "\\\""
            default: text.append(character)
            }
        }
        return text + "\""
    }
}

extension VariableDeclSyntax {
    var isStatic: Bool {
        modifiers.contains(.static) || modifiers.contains(.class)
    }

    var isLet: Bool {
        bindingSpecifier.tokenKind == .keyword(.let)
    }

    /// The first binding's name, for messages about declarations that are not
    /// otherwise analysed.
    var firstName: String {
        bindings.first?.pattern.trimmedDescription ?? "?"
    }
}

extension PatternBindingSyntax {
    /// Whether the binding has accessors that compute its value (as opposed
    /// to none, or only `willSet`/`didSet` observers).
    var isComputed: Bool {
        guard let accessorBlock else { return false }
        switch accessorBlock.accessors {
        case .getter:
            return true
        case .accessors(let accessors):
            return accessors.contains { accessor in
                switch accessor.accessorSpecifier.tokenKind {
                case .keyword(.willSet), .keyword(.didSet): false
                default: true
                }
            }
        }
    }

    /// Whether the binding has `willSet` or `didSet` observers.
    var hasObservers: Bool {
        guard let accessorBlock, !isComputed else { return false }
        if case .accessors(let accessors) = accessorBlock.accessors { return !accessors.isEmpty }
        return false
    }
}

extension AttributeSyntax {
    /// The `index:` argument the `@Entity` expansion writes into the
    /// accessor macros it attaches (`@_PersistedProperty(index: 2)`,
    /// `@_RelationshipProperty(index: 0)`): the slot the property's accessors
    /// report changes and read values through.
    var storageIndex: Int? {
        guard let argument = argumentList.first(where: { $0.label?.text == "index" }),
            let literal = argument.expression.as(IntegerLiteralExprSyntax.self)
        else { return nil }
        return Int(literal.literal.text)
    }
}
