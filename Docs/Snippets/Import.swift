// The snippet prelude of Docs/Import.md: the names its Swift blocks take
// as given. scripts/check-snippets.sh compiles these declarations beside
// the blocks, and runs these statements at the start of the function it
// wraps each block's statements in. Not a file to build on its own.

let stack = try RecordStack(inMemoryWith: [Person.self, Company.self])
let context = stack.newContext()
let jsonData = Data(#"[{"id": 7, "first_name": "Ann", "employer": {"id": 1, "name": "Acme"}}]"#.utf8)
