// A convenience initializer is not a designated one: the
// macro still generates `init()`, which it calls, and `create(in:)` exists.
import Foundation
import LiteRecord

@Entity final class Person {
    var name = ""
    var age = 0

    convenience init(name: String, age: Int) {
        self.init()
        self.name = name
        self.age = age
    }
}

func makePeople(in context: RecordContext) throws {
    _ = Person(name: "Ann", age: 31)
    _ = Person.create(in: context)
}
