import Foundation
import LiteRecord
import Testing

/// One predicate over `StoredValue`, with what LiteRecord must do with it.
struct StoredValueCase: Sendable, CustomTestStringConvertible {
    enum Expectation: Sendable {
        /// Translated, and exact.
        case translates
        /// Refused with `.unsupportedPredicate`.
        case refused
        /// Exact or refused: never a wrong answer.
        case exactOrRefused
    }

    let name: String
    let predicate: Predicate<StoredValue>
    let expectation: Expectation
    var testDescription: String { name }

    init(_ name: String, _ expectation: Expectation, _ predicate: Predicate<StoredValue>) {
        self.name = name
        self.predicate = predicate
        self.expectation = expectation
    }

    init(_ name: String, _ predicate: Predicate<StoredValue>) {
        self.init(name, .translates, predicate)
    }
}

/// The predicates over `StoredValue`, grouped by what they exercise. Each
/// `#Predicate` is its own expression.
enum StoredValuePredicateTable {
    /// The 19 predicates measured over the stored types when most were found
    /// refused (the 20th measurement is sorting by a Decimal, in the suite).
    /// Before the fix, 11 translated and the 8 marked below were refused.
    static func measured() -> [StoredValueCase] {
        let uuid = UUID(uuid: (2, 12, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, 0))
        let date = StoredValueSeed.base.addingTimeInterval(-2_000)
        let url = URL(string: "https://example.com/")
        let price = Decimal(string: "1.5", locale: Locale(identifier: "en_US_POSIX")) ?? 0
        let low = Decimal(string: "-1.5", locale: Locale(identifier: "en_US_POSIX")) ?? 0
        let ratio: Float = 0.1
        let tiny: Int8 = 0
        let count: UInt32 = 65_536
        let blob = Data([1, 2, 3])
        let high = Urgency.high
        let cheerful = Mood.cheerful
        let size = Size(w: 3, h: 0.5, label: "é")
        return [
            StoredValueCase("uuid == u", #Predicate { $0.uuid == uuid }),
            StoredValueCase("uuid < u", #Predicate { $0.uuid < uuid }),
            StoredValueCase("date < d", #Predicate { $0.date < date }),
            StoredValueCase("date == d", #Predicate { $0.date == date }),
            StoredValueCase("link == url (was refused)", #Predicate { $0.link == url }),
            StoredValueCase("link == nil (was refused)", #Predicate { $0.link == nil }),
            StoredValueCase("price == 1.5 (was refused)", #Predicate { $0.price == price }),
            StoredValueCase("price < -1.5 (was refused)", #Predicate { $0.price < low }),
            StoredValueCase("price > 1.5 (was refused)", #Predicate { $0.price > price }),
            StoredValueCase("ratio > 0.1", #Predicate { $0.ratio > ratio }),
            StoredValueCase("tiny < 0", #Predicate { $0.tiny < tiny }),
            StoredValueCase("count32 >= 65536", #Predicate { $0.count32 >= count }),
            StoredValueCase("blob == data", #Predicate { $0.blob == blob }),
            StoredValueCase("urgency == .high", #Predicate { $0.urgency == high }),
            StoredValueCase("urgency.rawValue > 3 (was refused)", #Predicate { $0.urgency.rawValue > 3 }),
            StoredValueCase("mood == .cheerful", #Predicate { $0.mood == cheerful }),
            StoredValueCase("size == s (was refused)", #Predicate { $0.size == size }),
            StoredValueCase("size.w > 2 (was refused)", #Predicate { $0.size.w > 2 }),
            StoredValueCase("flag", #Predicate { $0.flag }),
        ]
    }

    /// A RecordID kept in an ordinary attribute (JSON text in SQL) against
    /// captured RecordIDs and related objects' ids (row ids in SQL).
    static func recordIDs() -> [StoredValueCase] {
        let id = RecordID(entityName: "StoredValue", rowID: 1)
        let sameRowOtherEntity = RecordID(entityName: "StoredValuePartner", rowID: 1)
        let fallback = RecordID(entityName: "StoredValue", rowID: 2)
        let ids: [RecordID?] = [RecordID(entityName: "StoredValue", rowID: 2), RecordID(entityName: "Elsewhere", rowID: 1)]
        let plainIDs = [RecordID(entityName: "StoredValue", rowID: 3), RecordID(entityName: "StoredValuePartner", rowID: 1)]
        let idsWithNil: [RecordID?] = [nil, RecordID(entityName: "StoredValuePartner", rowID: 2)]
        let partnerID = RecordID(entityName: "StoredValuePartner", rowID: 2)
        let maybe: RecordID? = RecordID(entityName: "StoredValue", rowID: 1)
        return [
            StoredValueCase("target == id", #Predicate { $0.target == id }),
            StoredValueCase("target != id", #Predicate { $0.target != id }),
            StoredValueCase("target == id of another entity, same row id", #Predicate { $0.target == sameRowOtherEntity }),
            StoredValueCase("target == optional id", #Predicate { $0.target == maybe }),
            StoredValueCase("target == nil", #Predicate { $0.target == nil }),
            StoredValueCase("ids.contains(target)", #Predicate { ids.contains($0.target) }),
            StoredValueCase("ids with nil .contains(target)", #Predicate { idsWithNil.contains($0.target) }),
            StoredValueCase("(target ?? fallback) == fallback", #Predicate { ($0.target ?? fallback) == fallback }),
            StoredValueCase("plainIDs.contains(anchor)", #Predicate { plainIDs.contains($0.anchor) }),
            StoredValueCase("anchor == id", #Predicate { $0.anchor == id }),
            StoredValueCase("anchor != id", #Predicate { $0.anchor != id }),
            StoredValueCase("(target ?? anchor) == anchor", #Predicate { ($0.target ?? $0.anchor) == $0.anchor }),
            StoredValueCase("(flag ? target : id) == id", #Predicate { ($0.flag ? $0.target : id) == id }),
            StoredValueCase("(flag ? id : target) != id", #Predicate { ($0.flag ? id : $0.target) != id }),
            StoredValueCase(
                "(partner?.recordID ?? partnerID) == partnerID",
                #Predicate { ($0.partner?.recordID ?? partnerID) == partnerID }),
            StoredValueCase(
                "(partner?.recordID ?? id) == id: entities differ", .refused,
                #Predicate { ($0.partner?.recordID ?? id) == id }),
            StoredValueCase(
                "(flag ? partner?.recordID : id) == id: entities differ", .refused,
                #Predicate { ($0.flag ? $0.partner?.recordID : id) == id }),
            StoredValueCase(
                "(flag ? partner?.recordID : target) == id: row id vs JSON", .refused,
                #Predicate { ($0.flag ? $0.partner?.recordID : $0.target) == id }),
            StoredValueCase(
                "target == partner?.recordID: JSON vs row id", .refused,
                #Predicate { $0.target == $0.partner?.recordID }),
            StoredValueCase("partner?.recordID == partnerID", #Predicate { $0.partner?.recordID == partnerID }),
            StoredValueCase("targets.isEmpty (array of RecordIDs)", .exactOrRefused, #Predicate { $0.targets.isEmpty }),
            StoredValueCase("targets.contains(id)", .exactOrRefused, #Predicate { $0.targets.contains(id) }),
        ]
    }

    /// One predicate or more per value kind, beyond the measured ones.
    static func everyKind() -> [StoredValueCase] {
        let name = "é"
        let score = 0.5
        let tinies: [Int8] = [.min, 42]
        let blobs = [Data(), Data([0xFF, 0x00])]
        let links: [URL?] = [nil, URL(string: "file:///tmp/x")]
        let prices = [Decimal(string: "3") ?? 0, Decimal(string: "-2.5") ?? 0]
        let lowPrice = Decimal(string: "-2.5") ?? 0
        let highPrice = Decimal(string: "100") ?? 0
        let sizes = [Size(w: 2, h: 2, label: "b"), Size(w: 3, h: 0.5, label: "e\u{301}")]
        let square = Size(w: 2, h: 2, label: "b")
        let mid = Urgency.mid
        let urgencies: Set<Urgency> = [.low, .high]
        let p1 = "p1"
        let upper = URL(string: "HTTPS://EXAMPLE.COM")
        return [
            StoredValueCase("name == é (either spelling)", #Predicate { $0.name == name }),
            StoredValueCase("name < K", #Predicate { $0.name < "K" }),
            StoredValueCase("score > 0.5", #Predicate { $0.score > score }),
            StoredValueCase("!flag && tiny > 0", #Predicate { !$0.flag && $0.tiny > 0 }),
            StoredValueCase("tinies.contains(tiny)", #Predicate { tinies.contains($0.tiny) }),
            StoredValueCase("blobs.contains(blob)", #Predicate { blobs.contains($0.blob) }),
            StoredValueCase("link != url (case differs)", #Predicate { $0.link != upper }),
            StoredValueCase("links.contains(link)", #Predicate { links.contains($0.link) }),
            StoredValueCase("prices.contains(price)", #Predicate { prices.contains($0.price) }),
            StoredValueCase("price != 3.00", #Predicate { $0.price != 3 }),
            StoredValueCase("price <= -2.5", #Predicate { $0.price <= lowPrice }),
            StoredValueCase("(-2.5...100).contains(price)", #Predicate { (lowPrice...highPrice).contains($0.price) }),
            StoredValueCase("price == price literal 0.1", #Predicate { $0.price == 0.1 }),
            StoredValueCase("sizes.contains(size)", #Predicate { sizes.contains($0.size) }),
            StoredValueCase("size != sizes[0]", #Predicate { $0.size != square }),
            StoredValueCase("size.label == é", #Predicate { $0.size.label == name }),
            StoredValueCase("size.h < 1", #Predicate { $0.size.h < 1 }),
            StoredValueCase("urgency != .mid", #Predicate { $0.urgency != mid }),
            StoredValueCase("urgencies.contains(urgency)", #Predicate { urgencies.contains($0.urgency) }),
            StoredValueCase("urgency.rawValue % 2 == 0", #Predicate { $0.urgency.rawValue % 2 == 0 }),
            StoredValueCase("mood.rawValue == grumpy", #Predicate { $0.mood.rawValue == "grumpy" }),
            StoredValueCase("partner?.name == p1", #Predicate { $0.partner?.name == p1 }),
            StoredValueCase("partner == nil", #Predicate { $0.partner == nil }),
            StoredValueCase("link?.absoluteString starts with https", #Predicate { $0.link?.absoluteString.starts(with: "https") == true }),
        ]
    }
}
