/// How the stored model's names continue in a new model: one map, built from
/// the renaming hints (`originalName`), for entities, attributes and
/// relationships. The diff, the migrator and the "is this store unchanged"
/// check all go through it, so they never disagree about what is a rename.
///
/// A hint decides before a name does: `@Attribute(originalName: "name") var
/// fullName` claims the stored `name` even when the new model also has a
/// `name` (which is then a new attribute), and two attributes that swap their
/// names with hints swap their values. A hint the store is already past is
/// recognized by the stored model carrying the same hint on the new name (the
/// stored model records hints), so keeping hints in later versions is safe.
/// A hint naming something the store does not hold applies to nothing (the
/// store may predate that name: v1 → v3 where v2 added it). Two hints
/// claiming one stored name conflict, and are refused.
struct MigrationNames: Equatable {
    /// New entity name → stored entity name.
    private(set) var entities: [String: String] = [:]
    /// New entity name → (new attribute name → stored attribute name).
    private(set) var attributes: [String: [String: String]] = [:]
    /// New entity name → (new relationship name → stored relationship name).
    private(set) var relationships: [String: [String: String]] = [:]
    /// Hints that cannot be applied, as messages.
    private(set) var refusals: [String] = []

    init(from stored: ModelSchema, to new: ModelSchema) {
        entities = Self.match(
            stored: stored.entities.map { ($0.name, $0.originalName) }, new: new.entities.map { ($0.name, $0.originalName) },
            what: "entity", owner: nil, refusals: &refusals)
        for entity in new.entities {
            guard let storedName = entities[entity.name], let old = stored.entity(named: storedName) else { continue }
            attributes[entity.name] = Self.match(
                stored: old.attributes.map { ($0.name, $0.originalName) }, new: entity.attributes.map { ($0.name, $0.originalName) },
                what: "attribute", owner: entity.name, refusals: &refusals)
            relationships[entity.name] = Self.match(
                stored: (old.relationships ?? []).map { ($0.name, $0.originalName) },
                new: (entity.relationships ?? []).map { ($0.name, $0.originalName) },
                what: "relationship", owner: entity.name, refusals: &refusals)
        }
    }

    /// Whether every name the new model shares with the store continues
    /// itself: no hint applies.
    var isIdentity: Bool {
        refusals.isEmpty && entities.allSatisfy { $0.key == $0.value }
            && attributes.values.allSatisfy { $0.allSatisfy { $0.key == $0.value } }
            && relationships.values.allSatisfy { $0.allSatisfy { $0.key == $0.value } }
    }

    /// The stored name of the new entity `name`, or `nil` for an entity the store lacks.
    func storedEntity(_ name: String) -> String? { entities[name] }

    /// The new name of the stored entity `storedName`, or `nil` when the new model drops it.
    func newEntity(forStored storedName: String) -> String? {
        entities.first { $0.value == storedName }?.key
    }

    /// The stored name of attribute `name` of the new entity `entity`.
    func storedAttribute(_ name: String, of entity: String) -> String? { attributes[entity]?[name] }

    /// The stored name of relationship `name` of the new entity `entity`.
    func storedRelationship(_ name: String, of entity: String) -> String? { relationships[entity]?[name] }

    /// New name → stored name for one list of names (entities, or one
    /// entity's attributes or relationships).
    private static func match(
        stored: [(name: String, hint: String?)], new: [(name: String, hint: String?)], what: String, owner: String?,
        refusals: inout [String]
    ) -> [String: String] {
        var storedHints: [String: String?] = [:]
        for item in stored { storedHints[item.name] = item.hint }
        var result: [String: String] = [:]
        var claimedBy: [String: String] = [:]
        let prefix = owner.map { "\($0): " } ?? ""
        // Hints first: a declared rename claims its stored name before any
        // name can continue itself.
        for item in new {
            guard let hint = item.hint, hint != item.name else { continue }
            let target: String
            if case .some(.some(let storedHint)) = storedHints[item.name], storedHint == hint {
                target = item.name  // the store was written after this rename
            } else if storedHints[hint] != nil {
                target = hint
            } else {
                continue
            }
            if let other = claimedBy[target] {
                refusals.append(
                    "\(prefix)\(what)s '\(other)' and '\(item.name)' both continue the stored \(what) '\(target)' (through their renaming hints); LiteRecord cannot tell which one holds its data. Keep `originalName: \"\(target)\"` on one of them only"
                )
                continue
            }
            claimedBy[target] = item.name
            result[item.name] = target
        }
        for item in new where result[item.name] == nil && storedHints[item.name] != nil && claimedBy[item.name] == nil {
            claimedBy[item.name] = item.name
            result[item.name] = item.name
        }
        return result
    }
}

extension ModelSchema {
    /// Whether any entity, attribute or relationship carries a renaming hint.
    var hasRenamingHints: Bool {
        entities.contains { entity in
            entity.originalName != nil || entity.attributes.contains { $0.originalName != nil }
                || (entity.relationships ?? []).contains { $0.originalName != nil }
        }
    }

    /// Whether a store written by `self` (recorded with `fingerprint`) opens
    /// with `new` as it is: same fingerprint and canonical text, and no
    /// renaming hint of `new` that applies to it (hints are left out of the
    /// fingerprint, so two attributes swapping names with hints look unchanged
    /// there).
    func isUnchanged(becoming new: ModelSchema, fingerprint: String) -> Bool {
        fingerprint == new.fingerprint && canonicalText == new.canonicalText
            && (!new.hasRenamingHints || MigrationNames(from: self, to: new).isIdentity)
    }
}
