import SwiftSyntax

/// A stored property's type as far as its spelling tells. The macro cannot see
/// conformances: it emits generic calls and leaves the choice between the
/// built-in, `RawRepresentable` and `Codable` encodings to overload resolution.
/// Optionality, however, must be decided here, because `Optional` is itself
/// `Codable` and would otherwise be stored as JSON.
struct StoredType: Equatable {
    /// The type as declared (or inferred), e.g. `String?`.
    var declared: String
    /// The type without its optional, e.g. `String`.
    var wrapped: String
    var isOptional: Bool
    /// `T?` (not `Optional<T>`): only this spelling makes an uninitialized
    /// `var` start as `nil`.
    var isImplicitlyNil: Bool
}

enum TypeVerdict: Equatable {
    case supported(StoredType)
    case unsupported(reason: String)
    case implicitlyUnwrapped(wrapped: String)
    case nestedOptional
}

enum TypeAnalysis {
    static func verdict(for type: TypeSyntax) -> TypeVerdict {
        let type = unparenthesized(type)
        if let iuo = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return .implicitlyUnwrapped(wrapped: iuo.wrappedType.trimmedDescription)
        }
        var wrapped = type
        var isOptional = false
        var isSugared = false
        if let inner = optionalWrapped(type) {
            wrapped = unparenthesized(inner)
            isOptional = true
            isSugared = type.is(OptionalTypeSyntax.self)
            if optionalWrapped(wrapped) != nil || wrapped.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
                return .nestedOptional
            }
        }
        if let reason = unsupportedReason(wrapped, nested: false) {
            return .unsupported(reason: reason)
        }
        return .supported(
            StoredType(
                declared: type.trimmedDescription, wrapped: wrapped.trimmedDescription,
                isOptional: isOptional, isImplicitlyNil: isSugared))
    }

    /// The types LiteRecord stores as themselves (its `AttributeValue`s), by
    /// the names they are written with.
    static let builtInAttributeTypes: Set<String> = [
        "Bool", "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64",
        "Double", "Float", "String", "Data", "Date", "UUID", "URL", "Decimal",
    ]

    /// Whether a plain type name (`Date`, `Foundation.Date`) names a built-in
    /// attribute type, so that `T?` or `[T]` of it is a column whatever the
    /// compiler would say.
    static func isBuiltInAttributeType(_ name: String) -> Bool {
        var name = name
        for module in ["Swift.", "Foundation."] where name.hasPrefix(module) {
            name.removeFirst(module.count)
        }
        return builtInAttributeTypes.contains(name)
    }

    /// The name of the `static let` holding the coder of a stored property
    /// (`LiteRecord.AttributeCoding.coder(for:)`), or `nil` for a built-in
    /// type, which the generated code encodes and decodes directly.
    ///
    /// The macro cannot see conformances: for any other type, overload
    /// resolution picks the coder, once. A type that fits none fails there
    /// with one error saying what to do, and the calls through the coder add
    /// none. `@_PersistedProperty` declares the coder and
    /// `@Entity`'s members use it: both ask this function.
    static func coderName(column: String, wrapped: String) -> String? {
        isBuiltInAttributeType(wrapped) ? nil : "_coder_" + column
    }

    /// How a property's backing storage spells `type`: `T?` as `Optional<T>`.
    ///
    /// A stored `var _x: T?` starts as `nil` by itself, and Swift then treats
    /// the property as initialized and never runs its `init` accessor with the
    /// property's initial value, so `var email: String? = "x"` would start as
    /// `nil`. `Optional<T>` storage is initialized only through that accessor,
    /// which a property declared `T?` without a value still runs with `nil`.
    static func storageType(_ type: TypeSyntax) -> String {
        if let optional = type.as(OptionalTypeSyntax.self) {
            return "Optional<\(optional.wrappedType.trimmedDescription)>"
        }
        return type.trimmedDescription
    }

    /// `(T)` is `T`.
    static func unparenthesized(_ type: TypeSyntax) -> TypeSyntax {
        if let tuple = type.as(TupleTypeSyntax.self), tuple.elements.count == 1,
            let element = tuple.elements.first, element.firstName == nil, element.ellipsis == nil
        {
            return unparenthesized(element.type)
        }
        return type
    }

    /// The wrapped type of `T?`, `Optional<T>` or `Swift.Optional<T>`.
    static func optionalWrapped(_ type: TypeSyntax) -> TypeSyntax? {
        if let optional = type.as(OptionalTypeSyntax.self) { return optional.wrappedType }
        let genericArguments: GenericArgumentClauseSyntax?
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == "Optional" {
            genericArguments = identifier.genericArgumentClause
        } else if let member = type.as(MemberTypeSyntax.self), member.name.text == "Optional",
            member.baseType.trimmedDescription == "Swift"
        {
            genericArguments = member.genericArgumentClause
        } else {
            return nil
        }
        guard let arguments = genericArguments?.arguments, arguments.count == 1,
            case .type(let wrapped) = arguments.first?.argument
        else { return nil }
        return wrapped
    }

    /// Why values of `type` can never be stored, for the spellings that show
    /// it; `nil` when the spelling gives no reason (the compiler then checks
    /// the conformances).
    static func unsupportedReason(_ type: TypeSyntax, nested: Bool) -> String? {
        let type = unparenthesized(type)
        let reason: String?
        if type.is(FunctionTypeSyntax.self) {
            reason = "a function type"
        } else if let attributed = type.as(AttributedTypeSyntax.self) {
            return unsupportedReason(attributed.baseType, nested: nested)
        } else if type.is(TupleTypeSyntax.self) {
            reason = "a tuple"
        } else if let someOrAny = type.as(SomeOrAnyTypeSyntax.self) {
            reason =
                someOrAny.someOrAnySpecifier.tokenKind == .keyword(.some)
                ? "an opaque 'some' type" : "an existential 'any' type"
        } else if type.is(CompositionTypeSyntax.self) {
            reason = "a protocol composition"
        } else if type.is(MetatypeTypeSyntax.self) {
            reason = "a metatype"
        } else if let identifier = type.as(IdentifierTypeSyntax.self) {
            if ["Any", "AnyObject", "AnyClass"].contains(identifier.name.text) {
                reason = "an existential type"
            } else if let known = notStorable[identifier.name.text] {
                reason = known
            } else {
                reason = identifier.genericArgumentClause.flatMap { argumentsReason($0) }
                return reason
            }
        } else if let member = type.as(MemberTypeSyntax.self) {
            return member.genericArgumentClause.flatMap { argumentsReason($0) }
        } else if let array = type.as(ArrayTypeSyntax.self) {
            return unsupportedReason(array.element, nested: true)
        } else if let dictionary = type.as(DictionaryTypeSyntax.self) {
            return unsupportedReason(dictionary.key, nested: true) ?? unsupportedReason(dictionary.value, nested: true)
        } else if let optional = type.as(OptionalTypeSyntax.self) {
            return unsupportedReason(optional.wrappedType, nested: true)
        } else if let iuo = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return unsupportedReason(iuo.wrappedType, nested: true)
        } else {
            reason = nil
        }
        guard let reason else { return nil }
        return nested ? "it contains \(reason)" : reason
    }

    /// Types whose name says they can never be stored: neither an
    /// attribute value nor `Codable`.
    static let notStorable: [String: String] = [
        "Character": "'Character' is not Codable; store it as a 'String'",
        "NSNumber": "'NSNumber' is not Codable; use 'Int', 'Double' or 'Decimal'",
        "NSDecimalNumber": "'NSDecimalNumber' is not Codable; use 'Decimal'",
    ]

    private static func argumentsReason(_ clause: GenericArgumentClauseSyntax) -> String? {
        for argument in clause.arguments {
            if case .type(let type) = argument.argument, let reason = unsupportedReason(type, nested: true) {
                return reason
            }
        }
        return nil
    }

    // MARK: Inference

    /// The type of an initial value whose type the spelling settles: literals
    /// (as Swift types them without context), homogeneous array literals and
    /// `Type()` calls without arguments.
    static func inferredType(of expression: ExprSyntax) -> String? {
        if expression.is(IntegerLiteralExprSyntax.self) { return "Int" }
        if expression.is(FloatLiteralExprSyntax.self) { return "Double" }
        if expression.is(StringLiteralExprSyntax.self) { return "String" }
        if expression.is(BooleanLiteralExprSyntax.self) { return "Bool" }
        if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            if prefix.expression.is(IntegerLiteralExprSyntax.self) { return "Int" }
            if prefix.expression.is(FloatLiteralExprSyntax.self) { return "Double" }
            return nil
        }
        if let array = expression.as(ArrayExprSyntax.self), let first = array.elements.first {
            guard let element = inferredType(of: first.expression),
                array.elements.allSatisfy({ inferredType(of: $0.expression) == element })
            else { return nil }
            return "[\(element)]"
        }
        if let call = expression.as(FunctionCallExprSyntax.self), call.arguments.isEmpty,
            call.trailingClosure == nil, call.additionalTrailingClosures.isEmpty
        {
            // An argument-less initializer is not failable in practice, so the
            // call's type is the type named.
            return typeName(call.calledExpression)
        }
        return nil
    }

    /// A likely type for an initial value the macro cannot type with
    /// certainty: `Date.now` suggests `Date`, `Foo(bar: 1)` suggests `Foo`.
    static func suggestedType(of expression: ExprSyntax) -> String? {
        if let member = expression.as(MemberAccessExprSyntax.self), let base = member.base {
            return typeName(base)
        }
        if let call = expression.as(FunctionCallExprSyntax.self) {
            return typeName(call.calledExpression)
        }
        return nil
    }

    /// The type an expression names, when it is spelled like one: `UUID`,
    /// `Foundation.Date`, `Set<String>`, `[String]`, `[String: Int]`.
    static func typeName(_ expression: ExprSyntax) -> String? {
        if let reference = expression.as(DeclReferenceExprSyntax.self) {
            let name = reference.baseName.text.withoutBackticks
            guard reference.argumentNames == nil, let first = name.first, first.isUppercase else { return nil }
            return reference.trimmedDescription
        }
        if let member = expression.as(MemberAccessExprSyntax.self), let base = member.base {
            guard typeName(base) != nil, let first = member.declName.baseName.text.withoutBackticks.first,
                first.isUppercase
            else { return nil }
            return member.trimmedDescription
        }
        if let generic = expression.as(GenericSpecializationExprSyntax.self) {
            return typeName(generic.expression) == nil ? nil : generic.trimmedDescription
        }
        if let array = expression.as(ArrayExprSyntax.self), array.elements.count == 1,
            let element = array.elements.first, element.trailingComma == nil
        {
            return typeName(element.expression).map { "[\($0)]" }
        }
        if let dictionary = expression.as(DictionaryExprSyntax.self),
            case .elements(let elements) = dictionary.content, elements.count == 1,
            let element = elements.first, element.trailingComma == nil,
            let key = typeName(element.key), let value = typeName(element.value)
        {
            return "[\(key): \(value)]"
        }
        return nil
    }
}
