// The snippet prelude of Docs/Testing.md, and of the overview of
// LiteRecordTesting's documentation catalog: the names their Swift blocks take
// as given. scripts/check-snippets.sh compiles these declarations beside
// the blocks, and runs these statements at the start of the function it
// wraps each block's statements in. Not a file to build on its own.

@Entity final class Person {
    var name = ""
    var age = 0
    init() {}
    init(name: String, age: Int) { self.name = name; self.age = age }
}

@Entity final class Note {
    var title = ""
}

let person = Person(name: "Ann", age: 31)
