import Foundation
import Synchronization
import LiteRecord

/// Entities whose model is decided at run time: two slots (`SlotA`,
/// `SlotB`) of a family, each a ``Versioned`` entity whose name, renaming
/// hint, attributes and relationships come from the family's shape. A test
/// sets the shape, opens a stack (the model is read then), and sets another
/// shape for the next model version — so model versions can be generated.
/// Tests sharing a family must not run at the same time (`.serialized`).
struct DynamicEntityShape: Sendable {
    var name: String
    var originalName: String? = nil
    var attributes: [AttributeDescription] = []
    var relationships: [DynamicRelationship] = []
}

/// A relationship of a dynamic entity to slot `destination` (0 or 1).
struct DynamicRelationship: Sendable {
    var name: String
    var toMany: Bool
    var destination: Int
    var inverse: String? = nil
    var originalName: String? = nil
}

/// The shape of a family's entities, behind a lock: the library reads an
/// entity's statics from whatever thread it runs on.
final class DynamicShapeBox: Sendable {
    private let state = Mutex<[DynamicEntityShape]>([])

    var entities: [DynamicEntityShape] { state.withLock { $0 } }

    func set(_ entities: [DynamicEntityShape]) { state.withLock { $0 = entities } }
}

protocol DynamicFamily {
    static var box: DynamicShapeBox { get }
}

protocol DynamicSlot {
    static var index: Int { get }
}

enum SlotA: DynamicSlot { static var index: Int { 0 } }
enum SlotB: DynamicSlot { static var index: Int { 1 } }

final class DynamicEntity<Family: DynamicFamily, Slot: DynamicSlot>: Versioned {
    var recordState = RecordState()
    var values: [SQLValue]
    init(values: [SQLValue]) { self.values = values }

    private static var shape: DynamicEntityShape {
        let entities = Family.box.entities
        return Slot.index < entities.count ? entities[Slot.index] : DynamicEntityShape(name: "Unused\(Slot.index)")
    }

    static var entityName: String { shape.name }
    static var entityOriginalName: String? { shape.originalName }
    static var attributes: [AttributeDescription] { shape.attributes }
    static var relationships: [RelationshipDescription] {
        shape.relationships.map { relationship in
            let destination: any Entity.Type =
                relationship.destination == 0 ? DynamicEntity<Family, SlotA>.self : DynamicEntity<Family, SlotB>.self
            return relationship.toMany
                ? RelationshipDescription(relationship.name, toMany: destination, inverse: relationship.inverse, originalName: relationship.originalName)
                : RelationshipDescription(relationship.name, toOne: destination, inverse: relationship.inverse, originalName: relationship.originalName)
        }
    }

    /// The entity types of the current shape (one or both slots).
    static var types: [any Entity.Type] {
        Family.box.entities.count > 1
            ? [DynamicEntity<Family, SlotA>.self, DynamicEntity<Family, SlotB>.self] : [DynamicEntity<Family, SlotA>.self]
    }
}
