// The snippet prelude of Docs/Concurrency.md: the names its Swift blocks take
// as given. scripts/check-snippets.sh compiles these declarations beside
// the blocks, and runs these statements at the start of the function it
// wraps each block's statements in. Not a file to build on its own.

@Entity final class Note {
    var title = ""
}

@Entity final class Person {
    var name = ""
    var age = 0
}

@Entity final class Desk {
    @Relationship(inverse: \Lamp.desk) var lamp: Lamp?
}

@Entity final class Lamp {
    @Relationship var desk: Desk?
}

func render(_ notes: [Note]) {}

let stack = try RecordStack(inMemoryWith: [Note.self, Person.self, Desk.self, Lamp.self])
let context = stack.newContext()
let person = Person()
let note = Note()
let desk = Desk()
let newLamp = Lamp()
