import SwiftDiagnostics

/// Every diagnostic the LiteRecord macros emit. Messages are part of the
/// user-facing contract: tests pin them down word for word, so change them
/// deliberately.
enum EntityDiagnostic: DiagnosticMessage {
    // The class
    case notAClass(kind: String)
    case classNotFinal(className: String)
    case genericClass(className: String)
    case invalidName(label: String)
    case emptyEntityName
    case reservedEntityName(name: String)
    case sendableEntity(className: String)
    case equatableNotNamed(className: String, conformance: String)
    case nestedInGeneric(className: String, outer: String)
    case defaultInitNotVisible(className: String, access: String)

    // Stored properties
    case storedLet(name: String)
    case missingTypeAnnotation(name: String)
    case unsupportedType(name: String, type: String, reason: String)
    case implicitlyUnwrappedOptional(name: String, type: String)
    case nestedOptional(name: String, type: String)
    case reservedName(name: String)
    case protocolMemberName(name: String)
    case duplicateColumn(name: String, other: String)
    case storageNameClash(name: String, property: String)
    case multipleBindings
    case unsupportedPattern
    case propertyObservers(name: String)
    case lazyProperty(name: String)
    case referenceStorage(name: String, kind: String)
    case conditionalMembers
    case propertyWrapper(name: String, wrapper: String)

    // @Attribute and @Transient
    case notOnVariable(macro: String)
    case attributeOnComputedProperty(name: String)
    case attributeOnStaticProperty(name: String)
    case attributeWithTransient(name: String)
    case invalidAttributeOption(text: String)
    case invalidImportKey
    case invalidSearchWeight(text: String)
    case searchableNotText(name: String, type: String)
    case transientOnComputedProperty(name: String)
    case transientNeedsDefault(name: String)

    // @Relationship
    case relationshipNeedsType(name: String)
    case toOneNotOptional(name: String, type: String)
    case relationshipType(name: String, type: String)
    case relationshipDefault(name: String, empty: String)
    case invalidDeleteRule(text: String)
    case invalidInverse(text: String)
    case inverseTypeMismatch(name: String, inverse: String, destination: String)
    case countOnToOne(name: String, label: String)
    case invalidCount(label: String)
    case selfInverse(name: String)
    case attributeAndRelationship(name: String)

    static var reservedColumnList: String { ReservedNames.columnList }

    var message: String {
        switch self {
        case .notAClass(let kind):
            "'@Entity' can only be applied to a final class, not to \(kind)"
        case .classNotFinal(let className):
            "'@Entity' class '\(className)' must be 'final'"
        case .genericClass(let className):
            "'@Entity' cannot be applied to the generic class '\(className)'"
        case .invalidName(let label):
            "'\(label):' must be a plain string literal"
        case .emptyEntityName:
            "the entity name must not be empty"
        case .reservedEntityName(let name):
            "the entity name '\(name)' is reserved: names starting with 'sqlite_' or 'literecord_' belong to SQLite and LiteRecord"
        case .sendableEntity(let className):
            "'@Entity' class '\(className)' cannot be 'Sendable': its objects belong to the context that fetched them; pass 'RecordID's or values between tasks"
        case .equatableNotNamed(let className, let conformance):
            "'@Entity' class '\(className)' is '\(conformance)' but does not name 'Equatable': write '\(className): Equatable, \(conformance)' so that its own '==' is kept (with '@Entity' attached, Swift cannot find it for an 'Equatable' that '\(conformance)' only implies)"
        case .nestedInGeneric(let className, let outer):
            "'@Entity' class '\(className)' cannot be nested in the generic type '\(outer)'; declare it outside"
        case .defaultInitNotVisible(let className, let access):
            "'init()' is less visible than the \(access) class '\(className)', so it gets no 'create(in:)' (DefaultInitializable); make 'init()' \(access)"
        case .propertyWrapper(let name, let wrapper):
            "stored property '\(name)' cannot use the property wrapper or macro '@\(wrapper)', because '@Entity' generates its accessors; mark it '@Transient' or store the wrapped value"
        case .storedLet(let name):
            "stored property '\(name)' must be a 'var': LiteRecord sets it when it reads a record"
        case .missingTypeAnnotation(let name):
            "stored property '\(name)' needs a type annotation: '@Entity' cannot tell its type from the initial value"
        case .unsupportedType(let name, let type, let reason):
            "stored property '\(name)' has type '\(type)', which LiteRecord cannot store (\(reason)); mark it '@Transient'"
        case .implicitlyUnwrappedOptional(let name, let type):
            "stored property '\(name)' cannot be an implicitly unwrapped optional; declare it as '\(type)?'"
        case .nestedOptional(let name, let type):
            "stored property '\(name)' has the nested optional type '\(type)', which a NULL-able column cannot represent"
        case .reservedName(let name):
            "'\(name)' is a column name LiteRecord reserves (\(Self.reservedColumnList)); rename the property"
        case .protocolMemberName(let name):
            "'\(name)' clashes with the 'Entity' protocol's member '\(name)'; rename the property"
        case .duplicateColumn(let name, let other):
            "stored properties '\(other)' and '\(name)' would share one column (SQLite column names ignore case); rename one"
        case .storageNameClash(let name, let property):
            "'\(name)' clashes with the storage '@Entity' generates for '\(property)'; rename it"
        case .multipleBindings:
            "declare each stored property of an '@Entity' class with its own 'var'"
        case .unsupportedPattern:
            "'@Entity' supports stored properties with a plain name only"
        case .propertyObservers(let name):
            "stored property '\(name)' cannot have 'willSet' or 'didSet' observers, because '@Entity' generates its accessors; mark it '@Transient' or move the logic elsewhere"
        case .lazyProperty(let name):
            "lazy property '\(name)' cannot be stored; mark it '@Transient'"
        case .referenceStorage(let name, let kind):
            "'\(kind)' property '\(name)' cannot be stored; mark it '@Transient'"
        case .conditionalMembers:
            "'@Entity' does not support stored properties inside '#if'; declare them unconditionally"
        case .notOnVariable(let macro):
            "'@\(macro)' can only be applied to a stored property"
        case .attributeOnComputedProperty(let name):
            "'@Attribute' cannot be applied to the computed property '\(name)'; only stored properties are columns"
        case .attributeOnStaticProperty(let name):
            "'@Attribute' cannot be applied to the static property '\(name)'; only instance properties are columns"
        case .attributeWithTransient(let name):
            "property '\(name)' cannot be both '@Attribute' and '@Transient'"
        case .invalidImportKey:
            "'importKey:' must be a plain string literal: a key, or a dotted key path such as \"address.city\""
        case .invalidAttributeOption(let text):
            "'\(text)' is not an '@Attribute' option; write '.unique', '.indexed', '.searchable', '.searchable(weight:)' or '.preserveValueOnDeletion'"
        case .invalidSearchWeight(let text):
            "'\(text)' is not a search weight; write a positive number literal, e.g. '.searchable(weight: 2)'"
        case .searchableNotText(let name, let type):
            "'.searchable' applies to 'String' and 'String?' properties, and '\(name)' is '\(type)'"
        case .transientOnComputedProperty(let name):
            "'@Transient' has no effect on the computed property '\(name)'"
        case .transientNeedsDefault(let name):
            "'@Transient' property '\(name)' needs a default value: objects read from the store start with it"
        case .relationshipNeedsType(let name):
            "relationship '\(name)' needs a type annotation: 'Destination?' for a to-one, '[Destination]' for a to-many"
        case .toOneNotOptional(let name, let type):
            "to-one relationship '\(name)' must be optional ('\(type)?'): a record may have no related object, and a new object starts without one"
        case .relationshipType(let name, let type):
            "relationship '\(name)' has type '\(type)'; a relationship is 'Destination?' (to-one) or '[Destination]' (to-many) of another '@Entity' class"
        case .relationshipDefault(let name, let empty):
            "relationship '\(name)' can only start empty ('\(empty)'); assign related objects after creating the object"
        case .invalidDeleteRule(let text):
            "'\(text)' is not a delete rule; write '.nullify', '.cascade', '.deny' or '.noAction'"
        case .invalidInverse(let text):
            "'\(text)' is not an inverse; write a key path to the destination's relationship, e.g. '\\Book.author'"
        case .inverseTypeMismatch(let name, let inverse, let destination):
            "the inverse '\(inverse)' of relationship '\(name)' must be a relationship of its destination '\(destination)'"
        case .countOnToOne(let name, let label):
            "'\(label):' applies to to-many relationships only, and '\(name)' is a to-one"
        case .invalidCount(let label):
            "'\(label):' must be an integer literal"
        case .selfInverse(let name):
            "relationship '\(name)' cannot be its own inverse; declare a second relationship for the other direction"
        case .attributeAndRelationship(let name):
            "property '\(name)' cannot be both '@Attribute' (a column) and '@Relationship'; keep the one it is"
        }
    }

    var diagnosticID: MessageID {
        let id: String
        switch self {
        case .notAClass: id = "notAClass"
        case .classNotFinal: id = "classNotFinal"
        case .genericClass: id = "genericClass"
        case .invalidName: id = "invalidName"
        case .invalidImportKey: id = "invalidImportKey"
        case .emptyEntityName: id = "emptyEntityName"
        case .reservedEntityName: id = "reservedEntityName"
        case .sendableEntity: id = "sendableEntity"
        case .equatableNotNamed: id = "equatableNotNamed"
        case .nestedInGeneric: id = "nestedInGeneric"
        case .defaultInitNotVisible: id = "defaultInitNotVisible"
        case .propertyWrapper: id = "propertyWrapper"
        case .storedLet: id = "storedLet"
        case .missingTypeAnnotation: id = "missingTypeAnnotation"
        case .unsupportedType: id = "unsupportedType"
        case .implicitlyUnwrappedOptional: id = "implicitlyUnwrappedOptional"
        case .nestedOptional: id = "nestedOptional"
        case .reservedName: id = "reservedName"
        case .protocolMemberName: id = "protocolMemberName"
        case .duplicateColumn: id = "duplicateColumn"
        case .storageNameClash: id = "storageNameClash"
        case .multipleBindings: id = "multipleBindings"
        case .unsupportedPattern: id = "unsupportedPattern"
        case .propertyObservers: id = "propertyObservers"
        case .lazyProperty: id = "lazyProperty"
        case .referenceStorage: id = "referenceStorage"
        case .conditionalMembers: id = "conditionalMembers"
        case .notOnVariable: id = "notOnVariable"
        case .attributeOnComputedProperty: id = "attributeOnComputedProperty"
        case .attributeOnStaticProperty: id = "attributeOnStaticProperty"
        case .attributeWithTransient: id = "attributeWithTransient"
        case .invalidAttributeOption: id = "invalidAttributeOption"
        case .invalidSearchWeight: id = "invalidSearchWeight"
        case .searchableNotText: id = "searchableNotText"
        case .transientOnComputedProperty: id = "transientOnComputedProperty"
        case .transientNeedsDefault: id = "transientNeedsDefault"
        case .relationshipNeedsType: id = "relationshipNeedsType"
        case .toOneNotOptional: id = "toOneNotOptional"
        case .relationshipType: id = "relationshipType"
        case .relationshipDefault: id = "relationshipDefault"
        case .invalidDeleteRule: id = "invalidDeleteRule"
        case .invalidInverse: id = "invalidInverse"
        case .inverseTypeMismatch: id = "inverseTypeMismatch"
        case .countOnToOne: id = "countOnToOne"
        case .invalidCount: id = "invalidCount"
        case .selfInverse: id = "selfInverse"
        case .attributeAndRelationship: id = "attributeAndRelationship"
        }
        return MessageID(domain: "LiteRecordMacros", id: id)
    }

    var severity: DiagnosticSeverity {
        switch self {
        case .transientOnComputedProperty, .defaultInitNotVisible: .warning
        default: .error
        }
    }
}

/// The fix-its offered with ``EntityDiagnostic``s.
enum EntityFixIt: FixItMessage {
    case addFinal
    case replaceLetWithVar
    case addTypeAnnotation(type: String)
    case addTypePlaceholder
    case markTransient
    case makeOptional(type: String)
    case removeAttribute(macro: String)
    case addDefaultValue
    case nameEquatable
    case makeInitVisible(access: String)
    case removeConformance(name: String)

    var message: String {
        switch self {
        case .addFinal: "Add 'final'"
        case .replaceLetWithVar: "Replace 'let' with 'var'"
        case .addTypeAnnotation(let type): "Add the type annotation ': \(type)'"
        case .addTypePlaceholder: "Add a type annotation"
        case .markTransient: "Mark it '@Transient'"
        case .makeOptional(let type): "Declare it as '\(type)?'"
        case .removeAttribute(let macro): "Remove '@\(macro)'"
        case .addDefaultValue: "Add a default value"
        case .nameEquatable: "Add 'Equatable'"
        case .makeInitVisible(let access): "Make 'init()' \(access)"
        case .removeConformance(let name): "Remove '\(name)'"
        }
    }

    var fixItID: MessageID {
        let id: String
        switch self {
        case .addFinal: id = "addFinal"
        case .replaceLetWithVar: id = "replaceLetWithVar"
        case .addTypeAnnotation: id = "addTypeAnnotation"
        case .addTypePlaceholder: id = "addTypePlaceholder"
        case .markTransient: id = "markTransient"
        case .makeOptional: id = "makeOptional"
        case .removeAttribute: id = "removeAttribute"
        case .addDefaultValue: id = "addDefaultValue"
        case .nameEquatable: id = "nameEquatable"
        case .makeInitVisible: id = "makeInitVisible"
        case .removeConformance: id = "removeConformance"
        }
        return MessageID(domain: "LiteRecordMacros", id: id)
    }
}
