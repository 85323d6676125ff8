/// One difference between the model a store was written with and the model
/// it is opened with.
struct SchemaChange: Equatable, Sendable, CustomStringConvertible {
    enum Detail: Equatable, Sendable {
        case entityAdded
        case entityRemoved
        case entityRenamed(from: String)
        case attributeAdded(String)
        case attributeRemoved(String)
        case attributeRenamed(String, from: String)
        case typeChanged(String, from: AttributeType, to: AttributeType)
        case optionalityChanged(String, nowOptional: Bool)
        case uniqueChanged(String, nowUnique: Bool)
        case indexChanged(String, nowIndexed: Bool)
        case searchableChanged(String, nowSearchable: Bool)
        case relationshipAdded(String)
        case relationshipRemoved(String)
        case relationshipRenamed(String, from: String)
        case relationshipChanged(String, from: String, to: String)
    }

    let entity: String
    let detail: Detail

    /// The phrase used in messages, e.g. `attribute 'email' added`.
    var phrase: String {
        switch detail {
        case .entityAdded: "entity added"
        case .entityRemoved: "entity removed"
        case .entityRenamed(let old): "entity renamed from '\(old)'"
        case .attributeAdded(let name): "attribute '\(name)' added"
        case .attributeRemoved(let name): "attribute '\(name)' removed"
        case .attributeRenamed(let name, let old): "attribute '\(old)' renamed to '\(name)'"
        case .typeChanged(let name, let old, let new): "attribute '\(name)' changed type from \(old) to \(new)"
        case .optionalityChanged(let name, let optional):
            "attribute '\(name)' became \(optional ? "optional" : "non-optional")"
        case .uniqueChanged(let name, let unique): "attribute '\(name)' \(unique ? "became" : "is no longer") unique"
        case .indexChanged(let name, let indexed): "attribute '\(name)' \(indexed ? "became" : "is no longer") indexed"
        case .searchableChanged(let name, let searchable):
            "attribute '\(name)' \(searchable ? "became" : "is no longer") searchable"
        case .relationshipAdded(let name): "relationship '\(name)' added"
        case .relationshipRemoved(let name): "relationship '\(name)' removed"
        case .relationshipRenamed(let name, let old): "relationship '\(old)' renamed to '\(name)'"
        case .relationshipChanged(let name, let old, let new): "relationship '\(name)' changed from \(old) to \(new)"
        }
    }

    var description: String { "\(entity): \(phrase)" }
}

extension ModelSchema {
    /// What changed from `self` (the stored model) to `new`, following renaming
    /// hints (`originalName`) on entities, attributes and relationships through
    /// one ``MigrationNames`` map, the migrator's.
    func changes(to new: ModelSchema) -> [SchemaChange] {
        let names = MigrationNames(from: self, to: new)
        var changes: [SchemaChange] = []
        var matchedOld = Set<String>()
        for entity in new.entities {
            guard let storedName = names.storedEntity(entity.name), let old = self.entity(named: storedName) else {
                changes.append(SchemaChange(entity: entity.name, detail: .entityAdded))
                continue
            }
            if storedName != entity.name {
                changes.append(SchemaChange(entity: entity.name, detail: .entityRenamed(from: old.name)))
            }
            matchedOld.insert(old.name)
            changes += Self.attributeChanges(from: old, to: entity, names: names)
            changes += Self.relationshipChanges(from: old, to: entity, names: names)
        }
        for entity in entities where !matchedOld.contains(entity.name) {
            changes.append(SchemaChange(entity: entity.name, detail: .entityRemoved))
        }
        return changes
    }

    private static func attributeChanges(from old: EntitySchema, to new: EntitySchema, names: MigrationNames) -> [SchemaChange] {
        var changes: [SchemaChange] = []
        var matched = Set<String>()
        func add(_ detail: SchemaChange.Detail) {
            changes.append(SchemaChange(entity: new.name, detail: detail))
        }
        for attribute in new.attributes.sorted(by: { $0.name < $1.name }) {
            guard let storedName = names.storedAttribute(attribute.name, of: new.name),
                let previous = old.attribute(named: storedName)
            else {
                add(.attributeAdded(attribute.name))
                continue
            }
            if storedName != attribute.name { add(.attributeRenamed(attribute.name, from: previous.name)) }
            matched.insert(previous.name)
            if previous.type != attribute.type {
                add(.typeChanged(attribute.name, from: previous.type, to: attribute.type))
            }
            if previous.isOptional != attribute.isOptional {
                add(.optionalityChanged(attribute.name, nowOptional: attribute.isOptional))
            }
            if previous.isUnique != attribute.isUnique {
                add(.uniqueChanged(attribute.name, nowUnique: attribute.isUnique))
            }
            if previous.isIndexed != attribute.isIndexed {
                add(.indexChanged(attribute.name, nowIndexed: attribute.isIndexed))
            }
            if (previous.isSearchable ?? false) != (attribute.isSearchable ?? false) {
                add(.searchableChanged(attribute.name, nowSearchable: attribute.isSearchable ?? false))
            }
        }
        for attribute in old.attributes.sorted(by: { $0.name < $1.name }) where !matched.contains(attribute.name) {
            add(.attributeRemoved(attribute.name))
        }
        return changes
    }
}

extension ModelSchema {
    /// Relationships added, removed, renamed (`originalName`) or changed in
    /// kind or destination (a destination renamed with its entity is the same
    /// destination). A changed delete rule or inverse is not a change of the
    /// store's data, though an inverse may move where links are kept.
    fileprivate static func relationshipChanges(from old: EntitySchema, to new: EntitySchema, names: MigrationNames) -> [SchemaChange] {
        var changes: [SchemaChange] = []
        var matched = Set<String>()
        func shape(_ relationship: RelationshipSchema, destination: String) -> String {
            relationship.isToMany ? "[\(destination)]" : "\(destination)?"
        }
        for relationship in (new.relationships ?? []).sorted(by: { $0.name < $1.name }) {
            guard let storedName = names.storedRelationship(relationship.name, of: new.name),
                let previous = old.relationship(named: storedName)
            else {
                changes.append(SchemaChange(entity: new.name, detail: .relationshipAdded(relationship.name)))
                continue
            }
            if storedName != relationship.name {
                changes.append(SchemaChange(entity: new.name, detail: .relationshipRenamed(relationship.name, from: storedName)))
            }
            matched.insert(previous.name)
            let destination = names.newEntity(forStored: previous.destination) ?? previous.destination
            let before = shape(previous, destination: destination)
            let after = shape(relationship, destination: relationship.destination)
            if before != after {
                changes.append(
                    SchemaChange(
                        entity: new.name, detail: .relationshipChanged(relationship.name, from: before, to: after)))
            } else if (previous.joinTable == nil) != (relationship.joinTable == nil) || (previous.joinTable != nil && previous.joinTable != relationship.joinTable) {
                changes.append(
                    SchemaChange(
                        entity: new.name, detail: .relationshipChanged(relationship.name, from: Self.storage(previous), to: Self.storage(relationship))))
            }
        }
        for relationship in (old.relationships ?? []).sorted(by: { $0.name < $1.name }) where !matched.contains(relationship.name) {
            changes.append(SchemaChange(entity: new.name, detail: .relationshipRemoved(relationship.name)))
        }
        return changes
    }

    /// Where a to-many's links are kept, for a change of storage only.
    private static func storage(_ relationship: RelationshipSchema) -> String {
        relationship.joinTable.map { "links in join table \($0)" } ?? "links in \(relationship.destination)'s column"
    }
}

extension [SchemaChange] {
    /// `Person: attribute 'email' added; attribute 'nick' removed` — one group
    /// per entity, groups separated by newlines.
    var summary: String {
        var order: [String] = []
        var phrases: [String: [String]] = [:]
        for change in self {
            if phrases[change.entity] == nil { order.append(change.entity) }
            phrases[change.entity, default: []].append(change.phrase)
        }
        return order.map { "\($0): \(phrases[$0, default: []].joined(separator: "; "))" }.joined(separator: "\n")
    }
}
