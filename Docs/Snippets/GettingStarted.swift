// The snippet prelude of Docs/GettingStarted.md: the names its Swift blocks take
// as given. scripts/check-snippets.sh compiles these declarations beside
// the blocks, and runs these statements at the start of the function it
// wraps each block's statements in. Not a file to build on its own.

import Logging

@Entity final class Todo {
    var title = ""
    var isDone = false
}

@Entity final class Book {
    var identifier = UUID()
    var title = ""
}

@Entity final class Loan {
    var bookID = UUID()
}

@Entity final class Note {
    var title = ""
}

@Entity final class CachedPage {
    var url = ""
}

let stack = try RecordStack(inMemoryWith: [Person.self, Todo.self, Book.self, Loan.self, Note.self])
let context = stack.newContext()
let todo = Todo()
let book = Book()
let names = ["Ann", "Bob"]
let cacheURL = URL(fileURLWithPath: "/tmp/Cache.sqlite")
let archiveURL = URL(fileURLWithPath: "/Volumes/Archive/Notes.sqlite")
let logger = Logger(label: "App")
