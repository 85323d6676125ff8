import Foundation
import LiteRecord

/// The macro twin of `HandWrittenPerson`: same entity name and schema, so
/// both pass the same context tests and can even read each other's stores.
@Entity(name: "Person")
final class MacroPerson {
    @Attribute(.unique) var identifier = UUID()
    @Attribute(.indexed) var name = ""
    var age = 0
    var email: String?
    @Transient var awakeCount = 0
    @Transient var willSaveCount = 0
    @Transient var rejectName: String?

    init() {}

    init(name: String, age: Int, email: String? = nil) {
        self.name = name
        self.age = age
        self.email = email
    }

    func awakeFromInsert() { awakeCount += 1 }
    func willSave() { willSaveCount += 1 }

    struct Rejected: Error {}

    func validateForSave() throws {
        if let rejectName, name == rejectName { throw Rejected() }
    }
}

/// A `String`-backed enum that is also `Codable`: stored as its raw value.
enum Mood: String, Codable, CaseIterable {
    case calm, cheerful, grumpy
}

/// An `Int`-backed enum that is not `Codable`: stored as its raw value.
enum Priority: Int {
    case low = 1, high = 2
}

/// A nested `Codable` value: stored as JSON.
struct Address: Codable, Equatable {
    struct Location: Codable, Equatable {
        var latitude: Double
        var longitude: Double
    }

    var street: String
    var city: String
    var postcode: String?
    var location: Location?
    var labels: [String]
}

/// A `Codable` struct that is not `Equatable`: every assignment counts as a
/// change.
struct Settings: Codable {
    var fontSize = 12
}

/// One property of every supported type, optional and not.
@Entity
final class AllTypes {
    var bool: Bool = false
    var int: Int = 0
    var int8: Int8 = 0
    var int16: Int16 = 0
    var int32: Int32 = 0
    var int64: Int64 = 0
    var uint: UInt = 0
    var uint8: UInt8 = 0
    var uint16: UInt16 = 0
    var uint32: UInt32 = 0
    var uint64: UInt64 = 0
    var double: Double = 0
    var float: Float = 0
    var string: String = ""
    var data: Data = Data()
    var date: Date = Date(timeIntervalSinceReferenceDate: 0)
    var uuid: UUID = UUID()
    var url: URL = URL(filePath: "/")
    var decimal: Decimal = 0
    var mood: Mood = .calm
    var priority: Priority = .low
    var address: Address = Address(street: "", city: "", labels: [])
    var tags: [String] = []
    var settings: Settings = Settings()

    var optionalBool: Bool?
    var optionalInt: Int?
    var optionalInt8: Int8?
    var optionalInt64: Int64?
    var optionalUInt32: UInt32?
    var optionalDouble: Double?
    var optionalFloat: Float?
    var optionalString: String?
    var optionalData: Data?
    var optionalDate: Date?
    var optionalUUID: UUID?
    var optionalURL: URL?
    var optionalDecimal: Decimal?
    var optionalMood: Mood?
    var optionalPriority: Optional<Priority> = nil
    var optionalAddress: Address?
    var optionalTags: [String]?
}

/// Two versions of one entity: the first stores any text, the second reads it
/// as an enum, as after an app update that removed a case.
@Entity(name: "Feeling")
final class FeelingAsText {
    var mood: String = ""
    var optionalMood: String?
}

@Entity(name: "Feeling")
final class FeelingAsEnum {
    var mood: Mood = .calm
    var optionalMood: Mood?
}

/// Properties whose types the macro infers from their initial values, and a
/// name that needs backticks.
@Entity
final class Inferred {
    var `default` = -1
    var ratio = -0.5
    var flag = true
    var words = ["a", "b"]
    var ids = [UUID]()
    var counts = [String: Int]()
    var stamp = Foundation.Date()
    var maybe: Optional<Int> = nil
    var level: Double = 1
    static let unit = "m"
    @Transient lazy var cache: [Int] = [1, 2, 3]
}
