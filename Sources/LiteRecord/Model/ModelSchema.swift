import Foundation

/// The stored, canonical form of a model: what the store keeps in its metadata
/// table so that a later version of the app can compare and migrate without the
/// old Swift types.
struct ModelSchema: Codable, Equatable, Sendable {
    var formatVersion = 1
    var entities: [EntitySchema]

    init(entities: [EntitySchema]) {
        self.entities = entities.sorted { $0.name < $1.name }
    }

    func entity(named name: String) -> EntitySchema? {
        entities.first { $0.name == name }
    }

    /// The canonical text the fingerprint hashes: names, types, optionality,
    /// unique, index and searchable flags — the inputs of Core Data's version hashes.
    /// Renaming hints are left out: they describe a migration, not a model.
    var canonicalText: String {
        let texts = entities.map { entity in
            let attributes = entity.attributes.sorted { $0.name < $1.name }.map { attribute in
                var flags = ""
                if attribute.isOptional { flags += "?" }
                if attribute.isUnique { flags += "u" }
                if attribute.isIndexed { flags += "i" }
                if attribute.isSearchable == true { flags += "s" }
                return "\(attribute.name.count):\(attribute.name):\(attribute.type.name):\(flags)"
            }
            var text = "\(entity.name.count):\(entity.name){\(joinedText(attributes, separator: ","))}"
            // Only entities with relationships add to the text, so a model
            // without any keeps the fingerprint it had before relationships.
            if let relationships = entity.relationships, !relationships.isEmpty {
                let parts = relationships.sorted { $0.name < $1.name }.map { relationship in
                    let kind = relationship.isToMany ? "*" : "1"
                    let join = relationship.joinTable.map { ":\($0.count):\($0)" } ?? ""
                    let destination = relationship.destination
                    return "\(relationship.name.count):\(relationship.name):\(kind):\(destination.count):\(destination)\(join)"
                }
                text += "<\(joinedText(parts, separator: ","))>"
            }
            return text
        }
        return joinedText(texts, separator: ";")
    }

    /// A stable 64-bit FNV-1a hash of ``canonicalText``, in hex.
    var fingerprint: String { Self.fingerprint(of: canonicalText) }

    /// The fingerprint of a canonical text: for a caller that has the text
    /// already (building it is most of the cost).
    static func fingerprint(of canonicalText: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in canonicalText.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    func encoded() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    static func decode(_ text: String) throws -> ModelSchema {
        try JSONDecoder().decode(ModelSchema.self, from: Data(text.utf8))
    }
}

struct EntitySchema: Codable, Equatable, Sendable {
    var name: String
    var originalName: String?
    var attributes: [AttributeSchema]
    /// `nil` for an entity without relationships (and in every store written
    /// before relationships existed).
    var relationships: [RelationshipSchema]? = nil

    func relationship(named name: String) -> RelationshipSchema? {
        relationships?.first { $0.name == name }
    }

    func attribute(named name: String) -> AttributeSchema? {
        attributes.first { $0.name == name }
    }
}

struct AttributeSchema: Codable, Equatable, Sendable {
    var name: String
    var type: AttributeType
    var isOptional: Bool
    var isUnique: Bool
    var isIndexed: Bool
    var originalName: String?
    /// `true` for a `.searchable` attribute; `nil` otherwise, so that a model
    /// without search encodes (and compares) as it did before search existed.
    var isSearchable: Bool? = nil
}
