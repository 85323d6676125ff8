// The snippet prelude of Docs/StoreLocation.md: the names its Swift blocks take
// as given. scripts/check-snippets.sh compiles these declarations beside
// the blocks, and runs these statements at the start of the function it
// wraps each block's statements in. Not a file to build on its own.

let tmp = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
