// A class with equality of its own keeps it; the macro
// adds no competing `Equatable`. A class that is `Hashable` names `Equatable`
// beside it: with only `Hashable`, Swift 6.3's conformance checking of a
// class with an extension macro does not find its `==` (Docs/GettingStarted.md).
import Foundation
import LiteRecord

@Entity final class Tag: Equatable, Hashable {
    var label = ""
    init() {}

    static func == (lhs: Tag, rhs: Tag) -> Bool { lhs.label == rhs.label }
    func hash(into hasher: inout Hasher) { hasher.combine(label) }
}

@Entity final class Color: Equatable {
    var name = ""
    static func == (lhs: Color, rhs: Color) -> Bool { lhs.name == rhs.name }
}

@Entity final class Shade {
    var name = ""
    init() {}
    static func == (lhs: Shade, rhs: Shade) -> Bool { lhs.name == rhs.name }
}

func equalities(_ tag: Tag) -> Int {
    Set([tag]).count + (Color() == Color() ? 1 : 0) + (Shade() == Shade() ? 1 : 0)
}
