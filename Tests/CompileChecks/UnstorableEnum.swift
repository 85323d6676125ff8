// expect-error: LiteRecord cannot store a property of this type: make the type Codable, or RawRepresentable with a raw value LiteRecord stores (String, Int, Double, ...), or mark the property @Transient
// A stored property of a type LiteRecord cannot store
// (an enum without a raw value that is not Codable: the macro cannot see
// that) fails with this one error, at the property's coder, instead of five
// to nine "no exact matches in call to static method 'encode'". `nonisolated`
// as in StoredTypes.swift: under `-default-isolation MainActor`, Swift 6.3
// adds "circular reference" at a plain `enum` used by the generated code.
import Foundation
import LiteRecord

nonisolated enum Mood {
    case calm, busy
}

@Entity final class Diary {
    var title = ""
    var mood: Mood = .calm
    init() {}
}
