import Foundation
import Hummingbird
import LiteRecord
import HummingbirdLiteRecord
import Logging
import ServiceLifecycle

@Entity
final class Todo {
    var title = ""
    var done = false

    init() {}
}

struct TodoInput: Decodable {
    var title: String
}

struct TodoOutput: ResponseEncodable {
    var id: Int64
    var title: String
    var done: Bool

    init(_ todo: Todo) {
        id = todo.recordID?.rowID ?? 0
        title = todo.title
        done = todo.done
    }
}

// `todos-server [STORE] [PORT]`. `.automatic` migration: when a later version
// adds an attribute or an entity, the store gains the column or table at open.
let arguments = CommandLine.arguments.dropFirst()
let url = URL(fileURLWithPath: arguments.first ?? "todos.sqlite")
let port = arguments.dropFirst().first.flatMap { Int($0) } ?? 8080
let stack = try RecordStack(storeAt: url, entities: [Todo.self], migration: .automatic)

// HEAD is answered for every GET.
let options: RouterOptions = [.autoGenerateHeadEndpoints]
let router = Router(options: options)
// Before the routes: store errors become statuses (409, 412, 503, 507, 500).
router.add(middleware: StoreErrorMiddleware())

router.post("/todos") { request, context -> EditedResponse<TodoOutput> in
    // 415 for anything but JSON: no cross-site form or text/plain POST.
    try request.requireJSONContent()
    let input = try await request.decode(as: TodoInput.self, context: context)
    // `db`, not `context`: the handler's `context` (the request's) stays
    // in sight inside the closure instead of being shadowed.
    let created = try await stack.write { db in
        let todo = Todo()
        db.insert(todo)
        todo.title = input.title
        // save() gives the todo its id; the transaction commits when write {}
        // returns, and a throw before then rolls everything back.
        try db.save()
        return TodoOutput(todo)
    }
    return EditedResponse(status: .created, headers: [.location: "/todos/\(created.id)"], response: created)
}

router.get("/todos") { _, _ -> [TodoOutput] in
    try await stack.read { db in
        try Todo.findAll(in: db).map(TodoOutput.init)
    }
}

router.delete("/todos/:id") { _, context -> HTTPResponse.Status in
    let id = try context.parameters.require("id", as: Int64.self)
    try await stack.write { db in
        guard let todo = try Todo.find(rowID: id, in: db) else {
            throw HTTPError(.notFound, message: "no todo \(id)")
        }
        db.delete(todo)   // stored when write {} commits
    }
    return .noContent
}
// After the routes: 405 with Allow for a path served with other methods, 404.
router.add(middleware: UnmatchedRouteMiddleware(router: router, options: options))

let app = Application(
    router: router,
    configuration: .init(address: .hostname("127.0.0.1", port: port)),
    // Unbuffered, for scripts waiting for the port (`todos-server x.sqlite 0`).
    onServerRunning: { FileHandle.standardOutput.write(Data("listening on 127.0.0.1:\($0.localAddress?.port ?? port)\n".utf8)) }
)
// The stack first: the group stops its services in reverse order, so the
// server drains its requests before the stack closes.
let group = ServiceGroup(configuration: .init(
    services: [RecordStackService(stack), app],
    gracefulShutdownSignals: [.sigterm, .sigint],
    logger: Logger(label: "todos-server")
))
try await group.run()
