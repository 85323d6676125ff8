import Foundation
import Testing
import LiteRecord

/// A migration's own row changes: records deleted by a
/// declared removal, `NULL`s filled with a default, values converted by
/// `CAST` appear in no history transaction, so such a migration expires
/// every token (a new history identifier); one that rewrites nothing keeps
/// them.
@Suite("History: a migration that rewrites stored values expires every token")
struct MigrationHistoryTests {
    /// A Base store of people and notes with history on, and the token of
    /// its last transaction.
    private func storeWithHistory() throws -> (TemporaryStore, HistoryToken) {
        let store = try TemporaryStore()
        let stack = try RecordStack(storeAt: store.url, entities: [Base.Person.self, Base.Note.self], history: .enabled)
        let context = stack.newContext()
        for object in Base.people() + Base.notes() { context.insert(object) }
        try context.save()
        let token = try #require(try stack.newestHistoryToken())
        try stack.close()
        return (store, token)
    }

    private func expectExpired(_ stack: RecordStack, _ token: HistoryToken) {
        let error = #expect(throws: LiteRecordError.self) { try stack.fetchHistory(after: token) }
        #expect(error?.kind == .historyExpired)
        #expect(stack.lastMigrationReport?.actions.contains { $0.hasPrefix("expired every history token") } == true)
    }

    @Test func aDeclaredRemovalOfRecordsExpiresEveryToken() throws {
        let (store, token) = try storeWithHistory()
        defer { store.cleanUp() }
        let stack = try store.open([Base.Person.self], plan: MigrationPlan().removeEntity("Note"))
        expectExpired(stack, token)
        // A reader starts again from a new token, which works.
        let fresh = try #require(try stack.newestHistoryToken())
        #expect(try stack.fetchHistory(after: fresh).isEmpty)
        try stack.close()
    }

    @Test func defaultsFillingNullsExpireEveryToken() throws {
        let (store, token) = try storeWithHistory()
        defer { store.cleanUp() }
        let stack = try store.open([FilledNick.Person.self, Base.Note.self])
        expectExpired(stack, token)
        try stack.close()
    }

    @Test func aConversionExpiresEveryToken() throws {
        let (store, token) = try storeWithHistory()
        defer { store.cleanUp() }
        let stack = try store.open([AgeAsDouble.Person.self, Base.Note.self])
        expectExpired(stack, token)
        try stack.close()
    }

    @Test func aMigrationThatRewritesNothingKeepsTheTokens() throws {
        let (store, token) = try storeWithHistory()
        defer { store.cleanUp() }
        let stack = try store.open([AddedEmail.Person.self, Base.Note.self])
        #expect(try stack.fetchHistory(after: token).isEmpty)
        try stack.close()
    }
}

private enum FilledNick {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [
                attr("name", .string, [.unique]), attr("age", .int, [.indexed]),
                attr("nick", .string, default: .text("none")), attr("score", .double),
            ]
        }
    }
}

private enum AgeAsDouble {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [
                attr("name", .string, [.unique]), attr("age", .double, [.indexed]),
                attr("nick", .string, optional: true), attr("score", .double),
            ]
        }
    }
}

private enum AddedEmail {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [
                attr("name", .string, [.unique]), attr("age", .int, [.indexed]),
                attr("nick", .string, optional: true), attr("score", .double), attr("email", .string, optional: true),
            ]
        }
    }
}
