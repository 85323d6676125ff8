// expect-error: '@Entity' class 'Shelf' cannot be nested in the generic type 'Library'; declare it outside
// An entity nested in a generic type is one error at the
// class, saying what to do.
import Foundation
import LiteRecord

struct Library<Item> {
    @Entity final class Shelf {
        var name = ""
        init() {}
    }
}
