import Foundation
import LiteRecord

/// Deterministic `StoredValue`s whose attributes hit the edges of each stored
/// type: Decimals negative, fractional, past Double's precision and equal in
/// different spellings; URLs that differ only in case or a slash; RecordIDs
/// with equal row ids in different entities; canonically equivalent labels.
enum StoredValueSeed {
    static let decimals: [Decimal] = [
        "0", "-0.001", "1.5", "1.50", "-1.5", "123456789012345678901234567890.5", "-98765432109876543210",
        "0.000000000000000000001", "10", "9.99", "2", "100", "-100", "3", "3.00", "-2.5", "0.1", "1000000",
    ].map { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) ?? 0 }

    static let links: [URL?] = [
        nil, "https://example.com", "https://example.com/", "https://example.com/a?b=1", "HTTPS://EXAMPLE.COM",
        "file:///tmp/x", "https://example.com/%C3%A9", "mailto:a@b.c",
    ].map { $0.flatMap { URL(string: $0) } }

    static let sizes: [Size] = [
        Size(w: 0, h: 0, label: ""), Size(w: 3, h: 0.5, label: "é"), Size(w: 3, h: 0.5, label: "e\u{301}"),
        Size(w: -2, h: 1e300, label: "a"), Size(w: 2, h: 2, label: "b"), Size(w: 7, h: -1, label: "K"),
    ]

    static let blobs: [Data] = [Data(), Data([0]), Data([1, 2, 3]), Data("abc".utf8), Data([0xFF, 0x00])]
    static let ratios: [Float] = [0, 1.5, -2.25, 0.1, Float.greatestFiniteMagnitude, 1e-30]
    static let tinies: [Int8] = [.min, -1, 0, 1, 42, .max]
    static let counts: [UInt32] = [0, 1, 7, 65_536, .max - 1, .max]
    static let urgencies: [Urgency] = [.unset, .low, .mid, .high]
    static let moods: [Mood] = [.calm, .cheerful, .grumpy]
    static let names = ["Ann", "ann", "é", "e\u{301}", "", "K", "\u{212A}", "Zoë"]

    /// RecordIDs kept in attributes: row ids 1…3 of this entity, of the
    /// partner entity (the same numbers) and of an entity the model lacks.
    static let recordIDs: [RecordID?] = [
        nil, RecordID(entityName: "StoredValue", rowID: 1), RecordID(entityName: "StoredValue", rowID: 2),
        RecordID(entityName: "StoredValuePartner", rowID: 1), RecordID(entityName: "StoredValuePartner", rowID: 2),
        RecordID(entityName: "Elsewhere", rowID: 1),
    ]

    static let base = Date(timeIntervalSinceReferenceDate: 700_000_000.5)

    static let count = 72

    /// A stack holding three partners and ``count`` values, saved.
    static func stack() throws -> RecordStack {
        let stack = try RecordStack(inMemoryWith: [StoredValue.self, StoredValuePartner.self])
        let context = stack.newContext()
        var partners: [StoredValuePartner] = []
        for index in 1...3 {
            let partner = StoredValuePartner()
            partner.name = "p\(index)"
            context.insert(partner)
            partners.append(partner)
        }
        for index in 0..<count {
            let value = StoredValue()
            value.name = names[index % names.count]
            value.score = Double(index % 9) - 4.5
            value.uuid = UUID(
                uuid: (
                    UInt8(index % 5), UInt8(index), 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, UInt8(index % 3)
                ))
            value.date = base.addingTimeInterval(Double(index % 11) * 3_600 - 20_000)
            value.link = links[index % links.count]
            value.price = decimals[index % decimals.count]
            value.ratio = ratios[index % ratios.count]
            value.tiny = tinies[index % tinies.count]
            value.count32 = counts[index % counts.count]
            value.blob = blobs[index % blobs.count]
            value.urgency = urgencies[index % urgencies.count]
            value.mood = moods[(index / 2) % moods.count]
            value.size = sizes[index % sizes.count]
            value.flag = index % 3 == 0
            value.target = recordIDs[index % recordIDs.count]
            value.anchor = recordIDs[(index + 1) % recordIDs.count] ?? RecordID(entityName: "StoredValue", rowID: 3)
            value.targets = Array(recordIDs.compactMap { $0 }.prefix(index % 4))
            context.insert(value)
            value.partner = index % 4 == 3 ? nil : partners[index % 3]
        }
        try context.save()
        return stack
    }
}
