import Foundation
import Testing
@testable import LiteRecord

/// One change made both ways: as `updateAll` assignments, and as the same
/// assignments to each fetched object.
struct UpdateAllEdit<Root: Entity>: Sendable, CustomStringConvertible {
    let description: String
    let assignments: [AttributeAssignment<Root>]
    let apply: @Sendable (Root) -> Void

    init<V: Sendable>(_ description: String, _ keyPath: any ReferenceWritableKeyPath<Root, V> & Sendable, _ value: V) {
        self.description = description
        assignments = [.set(keyPath, to: value)]
        apply = { $0[keyPath: keyPath] = value }
    }

    init(_ description: String, _ edits: [UpdateAllEdit<Root>]) {
        self.description = description
        assignments = edits.flatMap(\.assignments)
        apply = { object in
            for edit in edits { edit.apply(object) }
        }
    }
}

/// The set-based path held against the plain one: for each predicate of the
/// query suite (``PredicateTranslationTests/cases``, over the seeded
/// ``QueryPerson``s), two identical stores; one runs
/// `updateAll(matching:…)`, the other fetches `findAll(matching:)`, sets the
/// attributes on each object and saves. Afterwards every row of the two
/// stores — every column, the version `Z_OPT` included, text compared byte
/// for byte — must be equal, and so must the number of records each path
/// changed (or the kind of error both met).
///
/// This is the contract of Docs/Internals/Invariants.md's "A fast path
/// means what the plain path means": `updateAll` must stay equal to the load-and-edit path in
/// every case, for every predicate and value added here later. The edits
/// run in sequence on the same pair of stores, so later ones meet rows that
/// earlier ones changed, and each includes rows that already hold its
/// value, which neither path may write.
@Suite struct UpdateAllExactnessTests {
    static let personEdits: [UpdateAllEdit<QueryPerson>] = [
        // An indexed attribute: stored in NFC, so the decomposed spelling
        // must be made canonical; both spellings are in the seed.
        UpdateAllEdit("name = Zoë (decomposed)", \.name, "Zoe\u{308}"),
        UpdateAllEdit("name = Ann", \.name, "Ann"),
        // An optional set to nil, then to text that is not canonicalised.
        UpdateAllEdit("nickname = nil", \.nickname, nil),
        UpdateAllEdit("nickname = é (decomposed)", \.nickname, "e\u{301}"),
        UpdateAllEdit("age = 42", \.age, 42),
        UpdateAllEdit("score = 1.5", \.score, 1.5),
        UpdateAllEdit("isActive = true", \.isActive, true),
        UpdateAllEdit("birthday = base", \.birthday, QuerySeed.base),
        UpdateAllEdit("rank = nil", \.rank, nil),
        UpdateAllEdit("rank = 3", \.rank, 3),
        UpdateAllEdit("status = banned", \.status, .banned),
        UpdateAllEdit("small = -128", \.small, Int8.min),
        UpdateAllEdit("weight = 2.5", \.weight, 2.5),
        UpdateAllEdit("tags = [t1]", \.tags, ["t1"]),
        UpdateAllEdit("price = 1.50", \.price, Decimal(string: "1.50") ?? 0),
        UpdateAllEdit("flag = nil", \.flag, nil),
        UpdateAllEdit("level = high", \.level, .high),
        UpdateAllEdit(
            "rank = nil, isActive = false, name = Émile (decomposed)",
            [UpdateAllEdit("", \.rank, nil), UpdateAllEdit("", \.isActive, false), UpdateAllEdit("", \.name, "E\u{301}mile")]),
        // Unique: a constraint violation for both paths once two rows match.
        UpdateAllEdit("identifier = one UUID", \.identifier, UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))),
    ]

    @Test(arguments: PredicateTranslationTests.cases)
    func updateAllEqualsLoadAndEdit(_ testCase: PredicateCase) throws {
        let fast = try QuerySeed.stack(count: 120)
        let plain = try QuerySeed.stack(count: 120)
        for edit in Self.personEdits {
            let setBased = Self.outcome {
                try fast.newContext().updateAll(QueryPerson.self, matching: testCase.predicate, edit.assignments)
            }
            let loaded = Self.outcome { try Self.loadAndEdit(plain, testCase.predicate, edit) }
            #expect(setBased == loaded, "\(testCase.name), \(edit)")
            let difference = try Self.difference("QueryPerson", fast, plain)
            #expect(difference == nil, "\(testCase.name), \(edit): \(difference ?? "")")
        }
    }

    /// The same for an `@Entity` class, whose setters decide a change
    /// differently (text byte for byte, `Double` bit for bit, other values
    /// by `==`, a value that is not `Equatable` always).
    @Test func updateAllEqualsLoadAndEditForAMacroEntity() throws {
        let titles = ["Zoë", "Zoe\u{308}", "cafe", "café", "cafe\u{301}", "K", "\u{212A}", ""]
        let predicates: [Predicate<UANote>] = [
            #Predicate { _ in true }, #Predicate { $0.stars < 3 }, #Predicate { $0.title == "Zoë" },
            #Predicate { $0.reviewer == nil }, #Predicate { $0.labels.isEmpty },
        ]
        let edits: [UpdateAllEdit<UANote>] = [
            UpdateAllEdit("title = Zoë (decomposed)", \.title, "Zoe\u{308}"),
            UpdateAllEdit("title = café", \.title, "café"),
            UpdateAllEdit("reviewer = é (decomposed)", \.reviewer, "e\u{301}"),
            UpdateAllEdit("reviewer = nil", \.reviewer, nil),
            UpdateAllEdit("stars = 2", \.stars, 2),
            UpdateAllEdit("score = 0.5", \.score, 0.5),
            UpdateAllEdit("labels = [a, b]", \.labels, ["a", "b"]),
            UpdateAllEdit("extra = x", \.extra, UAExtra(note: "x")),
            UpdateAllEdit("stars = 1, labels = []", [UpdateAllEdit("", \.stars, 1), UpdateAllEdit("", \.labels, [])]),
        ]
        for (position, predicate) in predicates.enumerated() {
            let (fast, plain) = (try RecordStack(inMemoryWith: [UANote.self, UAFolder.self]), try RecordStack(inMemoryWith: [UANote.self, UAFolder.self]))
            for stack in [fast, plain] {
                let context = stack.newContext()
                for (index, title) in titles.enumerated() {
                    let note = UANote(title, slug: "n\(index)", stars: index % 4)
                    note.reviewer = index % 3 == 0 ? nil : titles[(index + 1) % titles.count]
                    note.labels = index % 2 == 0 ? [] : ["a", "b"]
                    context.insert(note)
                }
                try context.save()
            }
            for edit in edits {
                let setBased = Self.outcome { try fast.newContext().updateAll(UANote.self, matching: predicate, edit.assignments) }
                let loaded = Self.outcome { try Self.loadAndEdit(plain, predicate, edit) }
                #expect(setBased == loaded, "predicate \(position), \(edit)")
                let difference = try Self.difference("UANote", fast, plain)
                #expect(difference == nil, "predicate \(position), \(edit): \(difference ?? "")")
            }
        }
    }

    // MARK: The two paths

    /// The plain path: fetch, assign, save; the number of records whose
    /// version the save moved.
    static func loadAndEdit<T: Entity>(_ stack: RecordStack, _ predicate: Predicate<T>, _ edit: UpdateAllEdit<T>) throws -> Int {
        let context = stack.newContext()
        let objects = try T.findAll(matching: predicate, in: context)
        let versions = objects.map(\.recordVersion)
        for object in objects { edit.apply(object) }
        try context.save()
        return zip(objects, versions).filter { $0.recordVersion != $1 }.count
    }

    /// A path's count, or the kind of error it met.
    static func outcome(_ body: () throws -> Int) -> String {
        do {
            return "changed \(try body())"
        } catch let error as LiteRecordError {
            return "failed: \(error.kind)"
        } catch {
            return "failed: \(error)"
        }
    }

    /// Whether every row of `table` is the same in both stores, every
    /// column, text byte for byte; on a difference, the first row that
    /// differs, as each store holds it.
    static func difference(_ table: String, _ a: RecordStack, _ b: RecordStack) throws -> String? {
        let (rowsA, rowsB) = (try rows(table, a), try rows(table, b))
        guard rowsA != rowsB else { return nil }
        guard let index = rowsA.indices.first(where: { !rowsB.indices.contains($0) || rowsA[$0] != rowsB[$0] }) else {
            return "\(rowsA.count) rows against \(rowsB.count)"
        }
        return "row \(index): \(spelled(rowsA[index])) against \(rowsB.indices.contains(index) ? spelled(rowsB[index]) : "none")"
    }

    /// A row with its values (``SQLValue``'s description hides them).
    private static func spelled(_ row: [SQLValue]) -> String {
        row.map { value in
            switch value {
            case .null: "NULL"
            case .integer(let number): "\(number)"
            case .real(let number): "\(number)"
            case .text(let text): text.debugDescription
            case .blob(let data): "x'" + data.map { String(format: "%02x", $0) }.joined() + "'"
            }
        }.joined(separator: ", ")
    }

    /// Every row of `table`, text as its bytes (``SQLValue``'s `==` compares
    /// text as Swift does, by canonical equivalence).
    private static func rows(_ table: String, _ stack: RecordStack) throws -> [[SQLValue]] {
        try stack.store.withConnection("reading \(table)") { connection in
            try connection.rows("SELECT * FROM \(SQLIdentifier.quote(table)) ORDER BY \(SQLIdentifier.quote(Model.primaryKeyColumn))")
                .map { row in row.map { if case .text(let text) = $0 { .blob(Data(text.utf8)) } else { $0 } } }
        }
    }
}
