// The snippet prelude of Docs/Server.md: the names its Swift blocks take
// as given. scripts/check-snippets.sh compiles these declarations beside
// the blocks, and runs these statements at the start of the function it
// wraps each block's statements in. Not a file to build on its own.

@Entity final class Bookmark {
    var url = ""
    var title = ""
}

struct BookmarkDTO: Sendable {
    var title: String
    init(_ bookmark: Bookmark) throws { title = bookmark.title }
}

let url = URL(fileURLWithPath: "todos.sqlite")
let stack = try RecordStack(storeAt: url, entities: [Todo.self, Bookmark.self])
let router = Router()
let logger = Logger(label: "todos-server")
let id: Int64 = 7
let bookmark = Bookmark()
let newTitle = "Swift.org"
let condition = try EntityTagCondition(fieldValues: [#""7.3""#], field: "If-Match")
let request = Request(head: .init(method: .put, scheme: "http", authority: "localhost", path: "/bookmarks/7"), body: .init(buffer: ByteBuffer()))
