import Foundation
import LiteRecord

/// A `Codable` struct with the synthesized `==`: stored as JSON.
struct Size: Codable, Equatable, Sendable {
    var w: Int
    var h: Double
    var label: String
}

/// An `Int`-backed enum that is not `CaseIterable`: LiteRecord cannot list its
/// values to check that a key path is its raw value. (`Codable`, as values in
/// a `Predicate` must be.)
enum Urgency: Int, Codable, Sendable {
    case unset = 0, low = 2, mid = 4, high = 7
}

/// One attribute of every type an entity stores (Docs/GettingStarted.md),
/// and a `RecordID` kept as an ordinary attribute, alone, optional and in an
/// array, for the tables that compare predicates in SQL with Swift's
/// evaluation.
@Entity(name: "StoredValue")
final class StoredValue {
    var name: String = ""
    var score: Double = 0
    var uuid: UUID = UUID()
    var date: Date = Date(timeIntervalSinceReferenceDate: 0)
    var link: URL?
    var price: Decimal = 0
    var ratio: Float = 0
    var tiny: Int8 = 0
    var count32: UInt32 = 0
    var blob: Data = Data()
    var urgency: Urgency = .unset
    var mood: Mood = .calm
    var size: Size = Size(w: 0, h: 0, label: "")
    var flag: Bool = false
    var target: RecordID?
    var anchor: RecordID = RecordID(entityName: "StoredValue", rowID: 0)
    var targets: [RecordID] = []
    @Relationship var partner: StoredValuePartner?

    init() {}
}

/// The other end of ``StoredValue/partner``: its objects' `recordID`s are row
/// ids in SQL, unlike the RecordIDs kept in attributes.
@Entity(name: "StoredValuePartner")
final class StoredValuePartner {
    var name: String = ""
    @Relationship(inverse: \StoredValue.partner) var values: [StoredValue] = []

    init() {}
}
