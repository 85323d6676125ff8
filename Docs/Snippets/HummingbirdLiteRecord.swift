// The snippet prelude of Integrations/HummingbirdLiteRecord/README.md: the
// names its Swift block takes as given. scripts/check-snippets.sh compiles
// these declarations beside the block, and runs these statements at the start
// of the function it wraps the block's statements in. Not a file to build on
// its own.

@Entity final class Todo {
    var title = ""
}

// These statements run in the block's function, which imports only what the
// block does: no Foundation, no Logging.
let stack = try RecordStack(inMemoryWith: [Todo.self])
let logger = RecordStack.logger
