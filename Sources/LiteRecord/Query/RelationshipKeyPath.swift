/// Takes apart a key path through to-one relationships
/// (`\Book.author?.publisher?.city`) into the names of its members
/// (`author`, `publisher`, `city`).
///
/// A key path cannot be decomposed, so the candidates are built instead, from
/// the pieces each entity lists (``Entity/memberKeyPath(named:throughOptional:)``):
/// `\Book.author` appended with `\Author?.?.publisher` appended with
/// `\Publisher?.?.city`. Such a built key path has the same components as the
/// literal one, but `==` tells them apart (the standard library marks where a
/// literal's class references end, which `appending` does not reproduce), so
/// two paths count as the same when their hashes and descriptions — both made
/// from the components — agree.
enum RelationshipKeyPath {
    /// How many to-one relationships a sort path may go through.
    static let maximumDepth = 4

    /// The member names of `keyPath`, or `nil` when it is not a stored
    /// attribute reached through one or more to-one relationships.
    static func names<T: Entity>(of keyPath: AnyKeyPath, from root: T.Type) -> [String]? {
        let target = Fingerprint(keyPath)
        for relationship in T.relationships where !relationship.isToMany {
            guard let base = T.memberKeyPath(named: relationship.name, throughOptional: false) else { continue }
            if let names = search(target, base, relationship.destination, [relationship.name]) { return names }
        }
        return nil
    }

    private static func search(_ target: Fingerprint, _ base: AnyKeyPath, _ entity: any Entity.Type, _ names: [String]) -> [String]? {
        for attribute in entity.attributes {
            guard let tail = entity.memberKeyPath(named: attribute.name, throughOptional: true),
                let path = base.appending(path: tail)
            else { continue }
            if Fingerprint(path) == target { return names + [attribute.name] }
        }
        guard names.count < maximumDepth else { return nil }
        for relationship in entity.relationships where !relationship.isToMany {
            guard let tail = entity.memberKeyPath(named: relationship.name, throughOptional: true),
                let path = base.appending(path: tail)
            else { continue }
            if let found = search(target, path, relationship.destination, names + [relationship.name]) { return found }
        }
        return nil
    }

    /// What two key paths with the same components share.
    private struct Fingerprint: Equatable {
        let hash: Int
        let description: String
        init(_ keyPath: AnyKeyPath) {
            hash = keyPath.hashValue
            description = String(describing: keyPath)
        }
    }
}
