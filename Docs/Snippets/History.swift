// The snippet prelude of Docs/History.md: the names its Swift blocks take
// as given. scripts/check-snippets.sh compiles these declarations beside
// the blocks, and runs these statements at the start of the function it
// wraps each block's statements in. Not a file to build on its own.

let url = URL(fileURLWithPath: "/var/lib/notes/Notes.sqlite")
let stack = try RecordStack(storeAt: url, entities: [Note.self], history: .enabled)
let context = stack.newContext()
var lastToken: HistoryToken? = nil
var token = try stack.newestHistoryToken()
let everyReaderIsPast = HistoryToken("42-9f2c61d0a4b8e7f1")!
let yesterday = Date.now.addingTimeInterval(-86_400)
var changes: [HistoryTransaction] = []
func reloadEverything() throws {}
