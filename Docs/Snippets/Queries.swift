// The snippet prelude of Docs/Queries.md: the names its Swift blocks take
// as given. scripts/check-snippets.sh compiles these declarations beside
// the blocks, and runs these statements at the start of the function it
// wraps each block's statements in. Not a file to build on its own.

enum Status: String, Codable, CaseIterable {
    case active, banned
}

@Entity final class Person {
    var name = ""
    var age = 0
    var email: String?
    var isActive = true
    var score = 0.0
    var nickname: String?
    var status: Status = .active
}

@Entity final class Book {
    var title = ""
    var author = ""
    var year = 0
    var genre = ""
    var tags: [String] = []
    var labels: [String]?
}

@Entity final class Tag {
    @Attribute(.unique) var label = ""
}

let stack = try RecordStack(inMemoryWith: [Person.self, Book.self, Tag.self])
let context = stack.newContext()
var total = 0
