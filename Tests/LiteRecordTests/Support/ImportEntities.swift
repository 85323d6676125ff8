import Foundation
import LiteRecord

// Entities for the import suites (Docs/Import.md), declared with the macro.

@Entity(name: "Company")
final class ICompany {
    @Attribute(.unique, importKey: "id") var companyID = 0
    var name = ""
    @Relationship(inverse: \IPerson.employer) var employees: [IPerson] = []
    init() {}
}

@Entity(name: "Person")
final class IPerson {
    @Attribute(.unique, importKey: "id") var identifier = 0
    @Attribute(importKey: "first_name") var name = ""
    @Attribute(importKey: "born", dateFormat: .iso8601) var birthday: Date?
    @Attribute(importKey: "address.city") var city: String?
    var age = 0
    var nicknames: [String] = []
    @Relationship var employer: ICompany?
    @Relationship(inverse: \ISkill.people) var skills: [ISkill] = []
    init() {}
}

/// Keyed by text: keys compare in NFC, like the unique index.
@Entity(name: "Skill")
final class ISkill {
    @Attribute(.unique) var label = ""
    var level = 0
    @Relationship var people: [IPerson] = []
    init() {}
}

/// Not `DefaultInitializable`: a new one needs its title from the input, so
/// a bare key alone cannot make one.
@Entity(name: "Album")
final class IAlbum {
    @Attribute(.unique) var code: String
    var title: String
    var year = 0
    init(code: String, title: String) {
        self.code = code
        self.title = title
    }
}

@Entity(name: "Track")
final class ITrack {
    @Attribute(.unique) var number = 0
    @Relationship var album: IAlbum?
    init() {}
}

enum IMood: String, Codable {
    case happy, sad
}

struct IPoint: Codable, Equatable {
    var x: Int
    var y: Int
}

/// One attribute of every kind, for the coercion suite.
@Entity(name: "Sample")
final class ISample {
    var flag = false
    var small: Int8 = 0
    var byte: UInt8 = 0
    var medium: Int32 = 0
    var big: Int64 = 0
    var unsigned: UInt64 = 0
    var count = 0
    var ratio = 0.0
    var single: Float = 0
    var text = ""
    var blob: Data?
    var when: Date?
    @Attribute(dateFormat: .unixSeconds) var seconds: Date?
    @Attribute(dateFormat: .unixMilliseconds) var millis: Date?
    @Attribute(dateFormat: .custom("dd/MM/yyyy HH:mm", timeZone: TimeZone(identifier: "Europe/Paris"))) var local: Date?
    @Attribute(dateFormat: .custom("yyyy-MM-dd")) var day: Date?
    var uuid: UUID?
    var link: URL?
    var price: Decimal?
    var mood: IMood = .happy
    var tags: [String] = []
    var point: IPoint?
    init() {}
}

/// Records its hooks; `"skip": true` makes `shouldImport` decline.
@Entity(name: "Hooked")
final class IHooked {
    @Attribute(.unique) var key = 0
    var value = ""
    @Transient var calls: [String] = []
    init() {}

    func shouldImport(_ data: [String: Any]) -> Bool {
        calls.append("should")
        return (data["skip"] as? Bool) != true
    }
    func willImport(_ data: [String: Any]) { calls.append("will:\(value)") }
    func didImport(_ data: [String: Any]) { calls.append("did:\(value)") }
}

let importEntities: [any Entity.Type] = [ICompany.self, IPerson.self, ISkill.self, IAlbum.self, ITrack.self]

/// Nests without end: for the depth limit.
@Entity(name: "Node")
final class INode {
    @Attribute(.unique) var id = 0
    var payload: [IPoint] = []
    @Relationship var child: INode?
    init() {}
}

/// Its hooks write stored attributes, which a failed import must take back.
@Entity(name: "Stamped")
final class IStamped {
    @Attribute(.unique) var key = 0
    var value = ""
    var before = ""
    var after = ""
    init() {}

    func willImport(_ data: [String: Any]) { before = "will \(value)" }
    func didImport(_ data: [String: Any]) { after = "did \(value)" }
}

/// One attribute of every numeric and text type, for the exact-number suites.
@Entity(name: "Values")
final class IValues {
    var int = 0
    var int8: Int8 = 0
    var int16: Int16 = 0
    var int32: Int32 = 0
    var int64: Int64 = 0
    var uint: UInt = 0
    var uint8: UInt8 = 0
    var uint16: UInt16 = 0
    var uint32: UInt32 = 0
    var uint64: UInt64 = 0
    var double = 0.0
    var float: Float = 0
    var decimal: Decimal = 0
    var string = ""
    var bool = false
    init() {}
}
