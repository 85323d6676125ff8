// expect-error: is 'Hashable' but does not name 'Equatable': write 'Tag: Equatable, Hashable'
// expect-error: type 'Tag' does not conform to protocol 'Equatable'
// A class that is `Hashable` without naming `Equatable`
// cannot keep its `==` with `@Entity` attached (Swift 6.3 looks for the
// implied conformance's witness where the class does not declare it): the
// macro says so at the user's line, with a fix-it, instead of leaving only
// "does not conform to protocol 'Equatable'", which Swift still reports
// beside it (the check counts errors: these two, no more).
import Foundation
import LiteRecord

@Entity final class Tag: Hashable {
    var label = ""
    init() {}

    static func == (lhs: Tag, rhs: Tag) -> Bool { lhs.label == rhs.label }
    func hash(into hasher: inout Hasher) { hasher.combine(label) }
}
