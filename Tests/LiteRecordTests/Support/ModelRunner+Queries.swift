import Foundation
@testable import LiteRecord

// Queries leaving out pending deletions: the queries that read the store observed while
// deletions are pending. Docs/Queries.md: "Queries read the store: unsaved
// inserts are not found, and objects marked for deletion (in this context
// or, for a child, in an ancestor) are left out — inside the SQL, so
// `fetchLimit`, `fetchOffset`, `findFirst`, `count`, `exists`, `aggregate`
// and `enumerate`'s pages all count exactly the objects a fetch returns."
// After each step that deletes or changes the store, for every kind the
// context under test is deleting stored records of, `count`, `exists` and a
// grouped `aggregate` in the context, and `findFirst` and `enumerate` (one,
// two and three rows a page) in a child of it, must agree with the model's live stored rows: the store's
// rows but those the context deletes (its cascades included: the model
// applies every rule as if everything were loaded), compared by their stored
// text, as the SQL compares it. The queries that return objects run in the
// child so that the context under test holds nothing more than the steps
// gave it: an object a query loads changes what later steps meet (which
// rows are loaded, at which version), and the sequence would no longer be
// the one the rest of the model generated.

/// What the queries of one kind answered, in the model's ids.
struct MQueryAnswers: Equatable, CustomStringConvertible {
    /// `findFirst` of every record, unsorted: any live one.
    var first: MID?
    /// `findFirst` of the records holding `probe`, the stored text of a
    /// pending deletion.
    var firstWithProbe: MID?
    var count = 0
    var countWithProbe = 0
    var existsWithProbe = false
    /// `enumerate` with a batch size of 1, 2 and 3: the records in the order met.
    var enumerated: [Int: [MID]] = [:]
    /// `aggregate(.count, of: \.text, groupedBy: \.text)`.
    var groups: [String: Int] = [:]

    var description: String {
        "findFirst \(first.map(String.init(describing:)) ?? "nil"), findFirst(text == probe) \(firstWithProbe.map(String.init(describing:)) ?? "nil"), "
            + "count \(count), count(text == probe) \(countWithProbe), exists(text == probe) \(existsWithProbe), "
            + "enumerate \(enumerated.sorted { $0.key < $1.key }.map { "batchSize \($0.key): \($0.value)" }.joined(separator: ", ")), "
            + "aggregate \(groups.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))"
    }
}

extension ModelRunner {
    /// `LITERECORD_MODEL_QUERIES=0` leaves the queries out: against code
    /// whose queries count pending deletions (de1b07a, queries leaving out pending deletions)
    /// nearly every sequence with a deletion fails here first, which hides
    /// what the rest of the model would find (scripts/model-proof.sh).
    static let observesQueries = ProcessInfo.processInfo.environment["LITERECORD_MODEL_QUERIES"] != "0"

    /// Compares the queries of every kind with a pending deletion of a
    /// stored record against the model (see above), after the steps that
    /// can change their answers: those that delete here (a child's and a
    /// grandchild's push too) or change the store at once. Other steps leave
    /// both the pending deletions and the stored rows as they were (a save
    /// or a rollback ends the deletions), and observing after every step
    /// doubled the test's time.
    func checkQueries(after op: MOp) throws {
        guard Self.observesQueries else { return }
        switch op {
        case .delete, .child, .grandchild, .write, .updateAllHere, .deleteAllHere, .findOrCreateHere: break
        default: return
        }
        let pending = model.held.filter { $0.key.row > 0 && $0.value.phase == .deleted && model.store.rows[$0.key] != nil }
        for kind in Set(pending.keys.map(\.kind)).sorted() {
            // The stored text of one pending deletion: the queries selecting
            // it must leave it out, and count only live records holding it.
            guard let probe = pending.keys.filter({ $0.kind == kind }).min().flatMap({ model.store.rows[$0]?.text }) else { continue }
            try checkQueries(kind, probe: probe)
        }
    }

    private func checkQueries(_ kind: MKind, probe: String) throws {
        let live = model.store.rows.filter { $0.key.kind == kind && model.held[$0.key]?.phase != .deleted }
        let liveIDs = live.keys.sorted()
        let probed = Set(live.filter { $0.value.text == probe }.map(\.key))
        var groups: [String: Int] = [:]
        for row in live.values { groups[row.text, default: 0] += 1 }
        let got = try ModelAccess.queryAnswers(kind, probe: probe, in: context, objectsIn: context.makeChildContext())
        coverage.channels.insert(.queryResults)
        var wrong: [String] = []
        if let first = got.first {
            if live[first] == nil { wrong.append("findFirst returned \(first), not a live record") }
        } else if !live.isEmpty {
            wrong.append("findFirst returned nil beside \(liveIDs.count) live records")
        }
        if let first = got.firstWithProbe {
            if !probed.contains(first) { wrong.append("findFirst(text == \"\(probe)\") returned \(first)") }
        } else if !probed.isEmpty {
            wrong.append("findFirst(text == \"\(probe)\") returned nil beside \(probed.sorted())")
        }
        if got.count != live.count { wrong.append("count is \(got.count), \(live.count) live") }
        if got.countWithProbe != probed.count { wrong.append("count(text == \"\(probe)\") is \(got.countWithProbe), \(probed.count) live") }
        if got.existsWithProbe != !probed.isEmpty { wrong.append("exists(text == \"\(probe)\") is \(got.existsWithProbe)") }
        for (size, ids) in got.enumerated.sorted(by: { $0.key < $1.key }) where ids.sorted() != liveIDs {
            wrong.append("enumerate(batchSize: \(size)) met \(ids)")
        }
        if got.groups != groups { wrong.append("aggregate(.count, of: \\.text, groupedBy: \\.text) is \(got.groups), the model \(groups)") }
        let deleting = model.held.filter { $0.key.kind == kind && $0.key.row > 0 && $0.value.phase == .deleted }.keys.sorted()
        note("queries \(kind) (deleting \(deleting)): \(wrong.isEmpty ? "as the model" : got.description)")
        guard wrong.isEmpty else {
            throw mismatch("query results", "\(kind), deleting \(deleting), live \(liveIDs): " + wrong.joined(separator: "; "))
        }
    }
}

extension ModelAccess {
    /// The queries of ``ModelRunner/checkQueries(after:)`` on `kind`: those that
    /// return objects in `child`, the others in `context`.
    static func queryAnswers(_ kind: MKind, probe: String, in context: RecordContext, objectsIn child: RecordContext) throws -> MQueryAnswers {
        switch kind {
        case .book:
            try queryAnswers(MTBook.self, kind, all: #Predicate { $0.text != "~" }, probed: #Predicate { $0.text == probe }, text: \.text, in: context, objectsIn: child)
        case .chapter:
            try queryAnswers(MTChapter.self, kind, all: #Predicate { $0.text != "~" }, probed: #Predicate { $0.text == probe }, text: \.text, in: context, objectsIn: child)
        case .paragraph:
            try queryAnswers(MTParagraph.self, kind, all: #Predicate { $0.text != "~" }, probed: #Predicate { $0.text == probe }, text: \.text, in: context, objectsIn: child)
        case .quote:
            try queryAnswers(MTQuote.self, kind, all: #Predicate { $0.text != "~" }, probed: #Predicate { $0.text == probe }, text: \.text, in: context, objectsIn: child)
        case .tag:
            try queryAnswers(MTTag.self, kind, all: #Predicate { $0.text != "~" }, probed: #Predicate { $0.text == probe }, text: \.text, in: context, objectsIn: child)
        case .note:
            try queryAnswers(MTNote.self, kind, all: #Predicate { $0.text != "~" }, probed: #Predicate { $0.text == probe }, text: \.text, in: context, objectsIn: child)
        }
    }

    private static func queryAnswers<T: Entity>(
        _ type: T.Type, _ kind: MKind, all: Predicate<T>, probed: Predicate<T>, text: KeyPath<T, String>, in context: RecordContext,
        objectsIn child: RecordContext
    ) throws -> MQueryAnswers {
        func id(_ object: T?) -> MID? { object?.recordID.map { MID(kind: kind, row: $0.rowID) } }
        var answers = MQueryAnswers()
        answers.first = id(try T.findFirst(matching: all, in: child))
        answers.firstWithProbe = id(try T.findFirst(matching: probed, in: child))
        answers.count = try T.count(matching: all, in: context)
        answers.countWithProbe = try T.count(matching: probed, in: context)
        answers.existsWithProbe = try T.exists(matching: probed, in: context)
        for size in 1...3 {
            var ids: [MID] = []
            try T.enumerate(matching: all, batchSize: size, in: child) { object in
                if let found = id(object) { ids.append(found) }
            }
            answers.enumerated[size] = ids
        }
        answers.groups = try T.aggregate(.count, of: text, groupedBy: text, matching: all, in: context)
        return answers
    }
}
