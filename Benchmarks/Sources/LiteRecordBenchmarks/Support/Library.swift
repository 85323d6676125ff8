import Synchronization

/// The data of the relationship workloads: authors, each with ten books, from
/// the same seeded generator as the items. Book `k` belongs to author
/// `k % authorCount`, so an author's books are spread over the book table as
/// they would be in a store filled over time.
enum Library {
    /// Authors in the relationship workloads (`--authors`).
    static let defaultAuthorCount = 10_000
    static let booksPerAuthor = 10

    struct AuthorValues: Sendable {
        var name: String
        var born: Int
    }

    struct BookValues: Sendable {
        var title: String
        var year: Int
        /// 0-based index of the author (its row id is one more).
        var author: Int
    }

    private static let words = [
        "Silent", "River", "Glass", "Winter", "Orchard", "Harbor", "Copper", "Lantern", "Meadow", "Signal",
        "Hollow", "Ember", "Atlas", "Tide", "Quarry", "Violet", "Cinder", "Marrow", "Summit", "Thread",
    ]

    static func author(_ index: Int) -> AuthorValues {
        var random = SplitMix64(seed: Dataset.seed ^ 0xA17 ^ (UInt64(index) &* 0x9E37_79B9_7F4A_7C15))
        let base = Dataset.row(index % 100_000)
        let name = base.name.split(separator: " ").prefix(2).joined(separator: " ") + " \(index)"
        return AuthorValues(name: name, born: 1900 + Int(random.next() % 110))
    }

    static func book(_ index: Int, authorCount: Int) -> BookValues {
        var random = SplitMix64(seed: Dataset.seed ^ 0xB00C ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
        let first = words[Int(random.next() % UInt64(words.count))]
        let second = words[Int(random.next() % UInt64(words.count))]
        return BookValues(title: "\(first) \(second) \(index)", year: 1950 + Int(random.next() % 75), author: index % authorCount)
    }

    static func bookCount(authors: Int) -> Int { authors * booksPerAuthor }

    /// The cascade workload deletes the authors born in an even year (about half).
    @inline(__always)
    static func isDoomed(born: Int) -> Bool { born % 2 == 0 }
}

extension Checksum {
    /// A book read together with its author.
    mutating func addBook(title: String, year: Int, authorName: String?, authorBorn: Int?) {
        var hasher = RowHasher()
        hasher.add(title)
        hasher.add(UInt64(bitPattern: Int64(year)))
        if let authorName { hasher.add(authorName) } else { hasher.addNull() }
        if let authorBorn { hasher.add(UInt64(bitPattern: Int64(authorBorn))) } else { hasher.addNull() }
        addRowHash(hasher.value)
    }

    /// An author row (the cascade workload checks which remain).
    mutating func addAuthor(name: String, born: Int) {
        var hasher = RowHasher()
        hasher.add(byte: 0xA0)
        hasher.add(name)
        hasher.add(UInt64(bitPattern: Int64(born)))
        addRowHash(hasher.value)
    }
}

/// The tables of the relationship workloads, as an engine family names them.
struct LibraryTables: Sendable {
    let author: String
    let book: String
    let key: String
    /// The book column holding its author's row id.
    let bookAuthor: String

    static let shared = LibraryTables(author: "author", book: "book", key: "id", bookAuthor: "authorId")
}

/// The schema the raw-C and GRDB engines share: a real foreign key with
/// `ON DELETE CASCADE` (GRDB's way to cascade), indexed.
enum LibrarySchema {
    static let create = """
        CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL, born INTEGER NOT NULL);
        CREATE TABLE book(id INTEGER PRIMARY KEY, title TEXT NOT NULL, year INTEGER NOT NULL, \
        authorId INTEGER NOT NULL REFERENCES author(id) ON DELETE CASCADE);
        CREATE INDEX book_authorId ON book(authorId);
        """

    /// Writes `authorCount` authors and their books into existing tables.
    static func insertRows(authors authorCount: Int, into db: RawDatabase, tables: LibraryTables) throws {
        try db.execute("BEGIN IMMEDIATE")
        let insertAuthor = try db.prepare("INSERT INTO \"\(tables.author)\" (name, born) VALUES (?, ?)")
        for index in 0..<authorCount {
            let author = Library.author(index)
            insertAuthor.reset()
            insertAuthor.bind(author.name, at: 1)
            insertAuthor.bind(Int64(author.born), at: 2)
            _ = try insertAuthor.step()
        }
        let insertBook = try db.prepare(
            "INSERT INTO \"\(tables.book)\" (title, year, \"\(tables.bookAuthor)\") VALUES (?, ?, ?)")
        for index in 0..<Library.bookCount(authors: authorCount) {
            let book = Library.book(index, authorCount: authorCount)
            insertBook.reset()
            insertBook.bind(book.title, at: 1)
            insertBook.bind(Int64(book.year), at: 2)
            insertBook.bind(Int64(book.author + 1), at: 3)
            _ = try insertBook.step()
        }
        try db.execute("COMMIT")
    }

    /// What the store holds after a workload, read with the C API: every
    /// author, and every book with the author its foreign key names (a
    /// dangling key reads as no author and breaks the checksum).
    static func checksum(path: String, tables: LibraryTables) throws -> Checksum {
        let db = try RawDatabase(path: path)
        var checksum = Checksum()
        let authors = try db.prepare("SELECT name, born FROM \"\(tables.author)\"")
        while try authors.step() { checksum.addAuthor(name: authors.string(0), born: Int(authors.int64(1))) }
        let books = try db.prepare(
            "SELECT b.title, b.year, a.name, a.born FROM \"\(tables.book)\" b LEFT JOIN \"\(tables.author)\" a "
                + "ON a.\"\(tables.key)\" = b.\"\(tables.bookAuthor)\"")
        while try books.step() {
            checksum.addBook(
                title: books.string(0), year: Int(books.int64(1)), authorName: books.optionalString(2),
                authorBorn: books.isNull(3) ? nil : Int(books.int64(3)))
        }
        return checksum
    }

    /// The expected checksums, from the generator alone.
    static func expected(_ workload: Workload, authors authorCount: Int) -> Checksum {
        let authors = (0..<authorCount).map(Library.author)
        var checksum = Checksum()
        let keep: (Int) -> Bool = workload == .relCascade ? { !Library.isDoomed(born: authors[$0].born) } : { _ in true }
        if workload == .relCascade {
            for author in authors where !Library.isDoomed(born: author.born) {
                checksum.addAuthor(name: author.name, born: author.born)
            }
        }
        for index in 0..<Library.bookCount(authors: authorCount) {
            let book = Library.book(index, authorCount: authorCount)
            guard keep(book.author) else { continue }
            let author = authors[book.author]
            checksum.addBook(title: book.title, year: book.year, authorName: author.name, authorBorn: author.born)
        }
        return checksum
    }
}

/// Counts the statements an engine runs in a workload (only in the warm-up
/// round: LiteRecord and GRDB count through SQLite's trace hook, which costs
/// a little per statement). Trace callbacks may come from another thread.
final class StatementCounter: Sendable {
    let enabled: Bool
    private let storage = Mutex(0)

    init(enabled: Bool) { self.enabled = enabled }

    var count: Int { storage.withLock { $0 } }

    func add(_ statements: Int = 1) {
        guard enabled else { return }
        storage.withLock { $0 &+= statements }
    }

    /// Forgets what was counted so far (the statements before the clock started).
    func reset() { storage.withLock { $0 = 0 } }
}
