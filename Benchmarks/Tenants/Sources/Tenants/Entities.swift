import Foundation
import LiteRecord

/// A tenant's row: the same in both designs, with the tenant column used
/// only by the co-mingled store.
@Entity(name: "Note")
final class Note {
    @Attribute(.indexed) var tenant = ""
    var title = ""
    var stars = 0
    init() {}
}
