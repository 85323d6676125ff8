// The snippet prelude of Docs/Relationships.md: the names its Swift blocks take
// as given. scripts/check-snippets.sh compiles these declarations beside
// the blocks, and runs these statements at the start of the function it
// wraps each block's statements in. Not a file to build on its own.

let stack = try RecordStack(inMemoryWith: [Author.self, Publisher.self, Book.self, Tag.self])
let context = stack.newContext()
let ann = Author()
let bob = Author()
let book = Book()
