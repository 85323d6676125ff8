// The snippet prelude of Docs/Observation.md: the names its Swift blocks take
// as given. scripts/check-snippets.sh compiles these declarations beside
// the blocks, and runs these statements at the start of the function it
// wraps each block's statements in. Not a file to build on its own.

@Entity final class Person {
    var name = ""
    var age = 0
}

func render(_ people: [Person]) {}

let stack = try RecordStack(inMemoryWith: [Person.self])
let context = stack.newContext()
let request = FetchRequest<Person>(sortBy: [SortDescriptor(\.name)])
