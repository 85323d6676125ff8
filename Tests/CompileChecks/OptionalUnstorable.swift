// expect-error: 'attribute(_:_:defaultValue:)' is unavailable: LiteRecord cannot store a property of this type: make the type Codable
// expect-error: 'decode(_:from:at:)' is unavailable: LiteRecord cannot store a property of this type
// expect-error: 'decode(_:from:at:)' is unavailable: LiteRecord cannot store a property of this type
// expect-error: 'encode' is unavailable: LiteRecord cannot store a property of this type
// `Mood?` may be a to-one relationship or an optional
// column, which only the compiler can tell, so the generated code leaves it
// to overloads (LiteRecord.EntityMember) and a type that is neither fails at
// each of their four calls. Each error now says what to do; before, all four
// asked for a conformance to 'Entity'. (A non-optional `Mood` fails once:
// UnstorableEnum.swift.)
import Foundation
import LiteRecord

nonisolated enum Mood {
    case calm, busy
}

@Entity final class Diary {
    var title = ""
    var mood: Mood?
    init() {}
}
