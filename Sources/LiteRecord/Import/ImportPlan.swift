import Foundation

/// What an import needs to know about one entity, worked out once per import
/// from the model: where each attribute's value is in the JSON, which
/// attribute matches existing objects, and the relationships.
struct ImportPlan {
    struct AttributePlan {
        /// The attribute's index in the entity (and in a ``Row``).
        let index: Int
        let name: String
        /// The import key as written: the attribute name, or its `importKey`.
        let key: String
        /// `key` split at its dots.
        let path: [String]
        let type: AttributeType
        let isOptional: Bool
        let hasDefault: Bool
        let dateReader: ImportDateReader
        /// Whether the stored text is NFC, so keys compare in NFC.
        let isCanonicalText: Bool
    }

    struct RelationshipPlan {
        let relationship: ResolvedRelationship
        /// The relationship's name, which is its import key.
        var key: String { relationship.name }
    }

    let entity: EntityDescription
    let attributes: [AttributePlan]
    /// The attribute existing objects are matched by: the entity's first
    /// `.unique` attribute.
    let unique: AttributePlan?
    let relationships: [RelationshipPlan]
    /// The attribute names, for the rows an import builds (made once, not per row).
    let attributeNames: [String]

    init(_ entity: EntityDescription) {
        self.entity = entity
        attributeNames = entity.attributes.map(\.name)
        let attributes = entity.attributes.enumerated().map { index, attribute in
            let key = attribute.importKey ?? attribute.name
            return AttributePlan(
                index: index, name: attribute.name, key: key,
                path: key.split(separator: ".", omittingEmptySubsequences: false).map(String.init),
                type: attribute.type, isOptional: attribute.isOptional, hasDefault: attribute.defaultValue != nil,
                dateReader: ImportDateReader(attribute.dateFormat ?? .automatic),
                isCanonicalText: attribute.storesCanonicalText)
        }
        self.attributes = attributes
        unique = attributes.first { entity.attributes[$0.index].isUnique }
        relationships = entity.relationships.map(RelationshipPlan.init)
    }

    /// The value at `path`, or `nil` when it is missing (or an object on the
    /// way is `null`).
    static func value(in element: [String: Any], at path: [String]) throws(CoercionFailure) -> Any? {
        if path.count == 1 { return element[path[0]] }
        var current: Any = element
        for (position, key) in path.enumerated() {
            guard let object = current as? [String: Any] else {
                if current is NSNull { return nil }
                throw CoercionFailure(
                    reason: "'\(path[..<position].joined(separator: "."))' is \(ImportValue(current).shape), not an object")
            }
            guard let next = object[key] else { return nil }
            current = next
        }
        return current
    }
}

/// Where an import is: the element of the input and the key path in it, for
/// error messages ("element 3, key path 'employer.id'").
struct ImportPath {
    let index: Int
    let keyPath: String

    func appending(_ key: String) -> ImportPath {
        ImportPath(index: index, keyPath: keyPath.isEmpty ? key : "\(keyPath).\(key)")
    }

    func appending(index position: Int) -> ImportPath {
        ImportPath(index: index, keyPath: "\(keyPath)[\(position)]")
    }

    var description: String {
        keyPath.isEmpty ? "element \(index)" : "element \(index), key path '\(keyPath)'"
    }
}
