import Foundation
import Testing
@testable import LiteRecord

/// Docs/Deployment.md, "A store per tenant": names, the lifecycle of a tenant, migration per tenant.
@Suite("RecordStacks: names and lifecycle")
struct RecordStacksTests {
    static let nastyNames = [
        "", ".", "..", "../escape", "../../etc/passwd", "/etc/passwd", "a/b", "a\\b", "a\0b", "\0",
        ".hidden", String(repeating: "a", count: 65), "a b", "tab\there", "new\nline", "é", "ａ", "a:b", "~",
        "*", "a*", "$HOME", "名前",
    ]

    @Test func nastyNamesAreRefusedBeforeTheDiskIsTouched() async throws {
        let temporary = try TemporaryDirectory()
        let tenants = try RecordStacks(directory: temporary.file("tenants"), entities: [TenantNote.self])
        for name in Self.nastyNames {
            let created = #expect(throws: LiteRecordError.self, "\(name.debugDescription)") { try tenants.create(name) }
            #expect(created?.kind == .validationFailed)
            #expect(created?.message.contains("tenant name") == true)
            let used = await #expect(throws: LiteRecordError.self) { try await tenants.withStack(for: name) { _ in } }
            #expect(used?.kind == .validationFailed)
            let deleted = await #expect(throws: LiteRecordError.self) { try await tenants.delete(name) }
            #expect(deleted?.kind == .validationFailed)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.url.path) == ["tenants"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.file("tenants").path).isEmpty)
        tenants.close()
    }

    @Test func validNamesAtTheLimitsAreAccepted() throws {
        let temporary = try TemporaryDirectory()
        let tenants = try RecordStacks(directory: temporary.url, entities: [TenantNote.self])
        let long = String(repeating: "z", count: 64)
        for name in ["a", "A-b_c.d", "0", long, "x..y"] { try tenants.create(name) }
        #expect(try tenants.names() == ["0", "A-b_c.d", "a", "x..y", long])
        tenants.close()
    }

    @Test func createNamesAndWithStackRoundTrip() async throws {
        let temporary = try TemporaryDirectory()
        let folder = temporary.file("missing/tenants")
        let tenants = try RecordStacks(directory: folder, entities: [TenantNote.self])
        try tenants.create("beta")
        try tenants.create("acme")
        #expect(try tenants.names() == ["acme", "beta"])
        try await tenants.withStack(for: "acme") { stack in
            try await TenantFixture.addNote("one", to: stack)
            try await TenantFixture.addNote("two", to: stack)
        }
        #expect(try await tenants.withStack(for: "acme") { try await TenantFixture.noteCount($0) } == 2)
        #expect(try await tenants.withStack(for: "beta") { try await TenantFixture.noteCount($0) } == 0)
        tenants.close()
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(files.contains("acme.sqlite") && files.contains("beta.sqlite"))
        // Reopened, the rows are there.
        let again = try RecordStacks(directory: folder, entities: [TenantNote.self])
        #expect(try await again.withStack(for: "acme") { try await TenantFixture.noteCount($0) } == 2)
        again.close()
    }

    @Test func unknownTenantThrowsAndCreatesNothing() async throws {
        let temporary = try TemporaryDirectory()
        let tenants = try RecordStacks(directory: temporary.url, entities: [TenantNote.self])
        let used = await #expect(throws: LiteRecordError.self) { try await tenants.withStack(for: "typo") { _ in } }
        #expect(used?.kind == .storeUnavailable)
        #expect(used?.message.contains("no tenant 'typo'") == true)
        let deleted = await #expect(throws: LiteRecordError.self) { try await tenants.delete("typo") }
        #expect(deleted?.kind == .storeUnavailable)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.url.path).isEmpty)
        #expect(tenants.openStackCount == 0)
        tenants.close()
    }

    @Test func namesDifferingInCaseAreOneTenant() async throws {
        let temporary = try TemporaryDirectory()
        let tenants = try RecordStacks(directory: temporary.url, entities: [TenantNote.self])
        try tenants.create("Acme")
        let again = #expect(throws: LiteRecordError.self) { try tenants.create("acme") }
        #expect(again?.kind == .storeUnavailable)
        #expect(again?.message.contains("already exists") == true)
        #expect(throws: LiteRecordError.self) { try tenants.create("Acme") }
        try await tenants.withStack(for: "ACME") { try await TenantFixture.addNote("n", to: $0) }
        #expect(try await tenants.withStack(for: "acme") { try await TenantFixture.noteCount($0) } == 1)
        #expect(tenants.openedStackCount == 1)
        #expect(try tenants.names() == ["Acme"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.url.path).filter { $0.hasSuffix(".sqlite") } == ["Acme.sqlite"])
        tenants.close()
        // Cold, found by another spelling too.
        let reopened = try RecordStacks(directory: temporary.url, entities: [TenantNote.self])
        #expect(try await reopened.withStack(for: "aCmE") { try await TenantFixture.noteCount($0) } == 1)
        reopened.close()
    }

    @Test func deleteThenCreateStartsWithAFreshEmptyStore() async throws {
        let temporary = try TemporaryDirectory()
        let tenants = try RecordStacks(directory: temporary.url, entities: [TenantNote.self])
        try tenants.create("acme")
        try tenants.create("acme.sqlite.pre-migration-x")  // shares a prefix: must survive
        let oldStack = try await tenants.withStack(for: "acme") { stack in
            try await TenantFixture.addNote("old", to: stack)
            return stack
        }
        try Data("copy".utf8).write(to: temporary.file("acme.sqlite.pre-migration-20260101T000000Z"))
        try await tenants.delete("ACME")
        #expect(!oldStack.isOpen)
        #expect(try tenants.names() == ["acme.sqlite.pre-migration-x"])
        let left = try FileManager.default.contentsOfDirectory(atPath: temporary.url.path)
        #expect(left.allSatisfy { $0.hasPrefix("acme.sqlite.pre-migration-x.sqlite") }, "\(left)")
        await #expect(throws: LiteRecordError.self) { try await tenants.withStack(for: "acme") { _ in } }
        try tenants.create("acme")
        #expect(try await tenants.withStack(for: "acme") { try await TenantFixture.noteCount($0) } == 0)
        tenants.close()
    }

    @Test func backupCopiesTheTenant() async throws {
        let temporary = try TemporaryDirectory()
        let tenants = try RecordStacks(directory: temporary.file("tenants"), entities: [TenantNote.self])
        try tenants.create("acme")
        try await tenants.withStack(for: "acme") { try await TenantFixture.addNote("kept", to: $0) }
        try await tenants.backup("acme", to: temporary.file("copy.sqlite"))
        let copy = try RecordStack(storeAt: temporary.file("copy.sqlite"), entities: [TenantNote.self])
        #expect(try await TenantFixture.noteCount(copy) == 1)
        try copy.close()
        let existing = await #expect(throws: LiteRecordError.self) {
            try await tenants.backup("acme", to: temporary.file("copy.sqlite"))
        }
        #expect(existing?.kind == .storeUnavailable)
        tenants.close()
    }

    @Test func aRefusedMigrationFailsThatTenantAloneAndNamesIt() async throws {
        let temporary = try TemporaryDirectory()
        let old = try RecordStacks(directory: temporary.url, entities: [TenantNote.self])
        try old.create("legacy")
        try await old.withStack(for: "legacy") { try await TenantFixture.addNote("text", to: $0) }
        old.close()
        let tenants = try RecordStacks(directory: temporary.url, entities: [TenantNoteRetyped.self])
        try tenants.create("fresh")
        let refused = await #expect(throws: LiteRecordError.self) {
            try await tenants.withStack(for: "legacy") { _ in }
        }
        #expect(refused?.kind == .migrationFailed)
        #expect(refused?.message.hasPrefix("tenant 'legacy':") == true, "\(refused?.message ?? "")")
        try await tenants.withStack(for: "fresh") { stack in
            try await stack.write { context in TenantNoteRetyped.create(in: context).title = 7 }
        }
        #expect(tenants.openStackCount == 1)
        // Refused again, as often as it is asked.
        await #expect(throws: LiteRecordError.self) { try await tenants.withStack(for: "legacy") { _ in } }
        tenants.close()
    }

    @Test func closeClosesEveryStackAndRefusesWhatFollows() async throws {
        let temporary = try TemporaryDirectory()
        let tenants = try RecordStacks(directory: temporary.url, entities: [TenantNote.self])
        try tenants.create("a")
        try tenants.create("b")
        let a = try await tenants.withStack(for: "a") { $0 }
        let b = try await tenants.withStack(for: "b") { $0 }
        tenants.close()
        #expect(!a.isOpen && !b.isOpen)
        #expect(tenants.openStackCount == 0)
        let after = await #expect(throws: LiteRecordError.self) { try await tenants.withStack(for: "a") { _ in } }
        #expect(after?.kind == .storeUnavailable)
        #expect(throws: LiteRecordError.self) { try tenants.create("c") }
    }

    /// A tenant deleted and created again starts empty and shares no
    /// history token with the one deleted — a token of the old store is refused
    /// as another store's (`.historyExpired`), never answered with the new
    /// store's transactions.
    @Test func aRecreatedTenantRefusesTheDeletedOnesTokens() async throws {
        let temporary = try TemporaryDirectory()
        let tenants = try RecordStacks(directory: temporary.url, entities: [TenantNote.self])
        defer { tenants.close() }
        try tenants.create("acme")
        let url = try RecordStacks.storeURL(ofTenant: "ACME", in: temporary.url)
        #expect(url.lastPathComponent == "acme.sqlite", "found in any letter case, spelled as created")

        let oldToken = try Self.writeWithHistory(url, titles: ["first", "second"])
        try await tenants.delete("acme")
        #expect(throws: LiteRecordError.self) { try RecordStacks.storeURL(ofTenant: "acme", in: temporary.url) }

        try tenants.create("acme")
        let count = try await tenants.withStack(for: "acme") { stack in
            try await stack.read { context in try TenantNote.count(in: context) }
        }
        #expect(count == 0, "the new tenant starts empty")
        let newToken = try Self.writeWithHistory(url, titles: ["third", "fourth"])
        #expect(newToken != oldToken)

        let stack = try RecordStack(storeAt: url, entities: [TenantNote.self], history: .enabled)
        defer { try? stack.close() }
        let error = #expect(throws: LiteRecordError.self) { try stack.fetchHistory(after: oldToken) }
        #expect(error?.kind == .historyExpired, "\(String(describing: error))")
        #expect(error?.message.contains("is not from") == true, "\(String(describing: error))")
    }

    /// Saves one note per title in the tenant's store, opened directly with
    /// history on; returns the newest token.
    private static func writeWithHistory(_ url: URL, titles: [String]) throws -> HistoryToken {
        let stack = try RecordStack(storeAt: url, entities: [TenantNote.self], history: .enabled)
        defer { try? stack.close() }
        for title in titles {
            let context = stack.newContext()
            let note = TenantNote()
            note.title = title
            context.insert(note)
            try context.save()
        }
        return try #require(try stack.newestHistoryToken())
    }
}
