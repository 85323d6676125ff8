// The snippet prelude of Docs/Migration.md: the names its Swift blocks take
// as given. scripts/check-snippets.sh compiles these declarations beside
// the blocks, and runs these statements at the start of the function it
// wraps each block's statements in. Not a file to build on its own.

@Entity final class Person {
    var firstName = ""
    var lastName = ""
    var email = ""
}

@Entity final class Book {
    var title = ""
}

@Entity final class Note {
    var text = ""
}

@Entity final class Tag {
    var name = ""
}

let url = URL(fileURLWithPath: "/var/lib/books/Books.sqlite")
