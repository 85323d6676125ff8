import Foundation
import LiteRecord

/// The entity the API contract declares for a person (the one
/// Docs/GettingStarted.md teaches, with every kind of attribute), word for
/// word apart from the class name, so the documented declaration keeps
/// compiling.
@Entity(name: "Person")
final class APIExamplePerson {
    @Attribute(.unique) var identifier: UUID = UUID()
    var name: String = ""
    var age: Int = 0
    var email: String?  // optional → NULL-able column
    @Attribute(originalName: "created") var createdAt: Date = Date()
    var tags: [String] = []  // Codable value → JSON column
    @Transient var scratch = 0  // never stored

    init() {}
    init(name: String, age: Int) { self.name = name; self.age = age }

    func awakeFromInsert() { identifier = UUID() }  // optional hook, runs once on insert
}
