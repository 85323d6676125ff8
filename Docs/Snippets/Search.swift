// The snippet prelude of Docs/Search.md: the names its Swift blocks take
// as given. scripts/check-snippets.sh compiles these declarations beside
// the blocks, and runs these statements at the start of the function it
// wraps each block's statements in. Not a file to build on its own.

let stack = try RecordStack(inMemoryWith: [Article.self])
let context = stack.newContext()
let cutoff = Date.now.addingTimeInterval(-30 * 86_400)
