import Foundation
import LiteRecord

/// `make bench`'s entity (Benchmarks/Sources/LiteRecordBenchmarks): the same
/// attributes, so that the workloads cost what they cost there.
@Entity(name: "Item")
final class Item {
    var uuid = ""
    var name = ""
    @Attribute(.indexed) var age = 0
    var score = 0.0
    var created = 0.0
    var email: String? = nil
    init() {}
}

/// The same entity keeping `uuid` in a deletion's tombstone.
@Entity(name: "KeptItem")
final class KeptItem {
    @Attribute(.preserveValueOnDeletion) var uuid = ""
    var name = ""
    @Attribute(.indexed) var age = 0
    var score = 0.0
    var created = 0.0
    var email: String? = nil
    init() {}
}

/// Fills `object` with row `index` of the data set.
func fill(_ item: Item, _ index: Int) {
    item.uuid = UUID().uuidString
    item.name = "Person \(index)"
    item.age = index % 90
    item.score = Double(index) * 0.5
    item.created = 1_700_000_000 + Double(index)
    item.email = index % 3 == 0 ? nil : "person\(index)@example.com"
}

func fill(_ item: KeptItem, _ index: Int) {
    item.uuid = UUID().uuidString
    item.name = "Person \(index)"
    item.age = index % 90
    item.score = Double(index) * 0.5
    item.created = 1_700_000_000 + Double(index)
    item.email = index % 3 == 0 ? nil : "person\(index)@example.com"
}
