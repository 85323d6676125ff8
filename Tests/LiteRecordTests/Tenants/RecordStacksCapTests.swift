import Foundation
import Testing
@testable import LiteRecord

/// Docs/Deployment.md, "A store per tenant": `maxOpen`, the least recently used idle stack, stacks held by
/// closures, and many tasks opening one cold tenant.
@Suite("RecordStacks: the cap on open stacks")
struct RecordStacksCapTests {
    func tenants(_ names: [String], maxOpen: Int, in temporary: TemporaryDirectory) throws -> RecordStacks {
        let tenants = try RecordStacks(directory: temporary.url, entities: [TenantNote.self], maxOpen: maxOpen)
        for name in names { try tenants.create(name) }
        return tenants
    }

    func openKeys(_ tenants: RecordStacks) -> Set<String> {
        tenants.table.withLock { table in Set(table.slots.filter { $0.value.stack != nil }.keys) }
    }

    @Test func pastMaxOpenTheLeastRecentlyUsedIdleStackCloses() async throws {
        let temporary = try TemporaryDirectory()
        let tenants = try tenants(["a", "b", "c"], maxOpen: 2, in: temporary)
        let a = try await tenants.withStack(for: "a") { $0 }
        let b = try await tenants.withStack(for: "b") { $0 }
        _ = try await tenants.withStack(for: "a") { $0 }  // b is now the least recent
        #expect(tenants.openStackCount == 2)
        try await tenants.withStack(for: "c") { try await TenantFixture.addNote("c", to: $0) }
        #expect(tenants.openStackCount == 2)
        #expect(openKeys(tenants) == ["a", "c"])
        #expect(!b.isOpen)
        #expect(a.isOpen)
        // b opens again (closing a, now the least recent), its rows intact.
        #expect(try await tenants.withStack(for: "b") { try await TenantFixture.noteCount($0) } == 0)
        #expect(openKeys(tenants) == ["b", "c"])
        #expect(tenants.openedStackCount == 4)
        tenants.close()
    }

    @Test func aHeldStackIsNeverClosedAndANewTenantWaitsForRoom() async throws {
        let temporary = try TemporaryDirectory()
        let tenants = try tenants(["a", "b", "c", "d"], maxOpen: 2, in: temporary)
        let cDone = Shared(false)
        try await tenants.withStack(for: "a") { a in
            // b is opened and released: idle, so it makes room for c.
            try await tenants.withStack(for: "b") { try await TenantFixture.addNote("b", to: $0) }
            try await tenants.withStack(for: "c") { c in
                #expect(a.isOpen)
                #expect(tenants.openStackCount == 2)
                // a and c are both held: d must wait, not exceed the cap.
                let waiting = Task {
                    try await tenants.withStack(for: "d") { try await TenantFixture.addNote("d", to: $0) }
                    cDone.value = true
                }
                try await Task.sleep(for: .milliseconds(300))
                #expect(!cDone.value)
                #expect(tenants.openStackCount == 2)
                try await TenantFixture.addNote("a", to: a)
                try await TenantFixture.addNote("c", to: c)
                _ = waiting
            }
            // c released: d takes its room; a, still held, stays open.
            try await Self.waitUntil { cDone.value }
            #expect(a.isOpen)
            #expect(tenants.openStackCount == 2)
            try await TenantFixture.addNote("a2", to: a)
        }
        #expect(openKeys(tenants) == ["a", "d"])
        #expect(try await tenants.withStack(for: "a") { try await TenantFixture.noteCount($0) } == 2)
        tenants.close()
    }

    @Test func manyTasksOpeningOneColdTenantOpenItOnce() async throws {
        let temporary = try TemporaryDirectory()
        let tenants = try tenants(["cold"], maxOpen: 4, in: temporary)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await tenants.withStack(for: index.isMultiple(of: 2) ? "cold" : "COLD") { stack in
                        try await TenantFixture.addNote("\(index)", to: stack)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(tenants.openedStackCount == 1)
        #expect(try await tenants.withStack(for: "cold") { try await TenantFixture.noteCount($0) } == 20)
        tenants.close()
    }

    @Test func deleteWaitsForTheClosureHoldingTheStack() async throws {
        let temporary = try TemporaryDirectory()
        let tenants = try tenants(["acme"], maxOpen: 2, in: temporary)
        let deleted = Shared(false)
        try await tenants.withStack(for: "acme") { stack in
            // Detached: a task started inside the closure would inherit its
            // hold, and delete would refuse to wait for itself.
            let deletion = Task.detached {
                try await tenants.delete("acme")
                deleted.value = true
            }
            try await Task.sleep(for: .milliseconds(200))
            #expect(!deleted.value)
            #expect(stack.isOpen)
            try await TenantFixture.addNote("still", to: stack)
            // New users are refused while the deletion waits.
            await #expect(throws: LiteRecordError.self) { try await tenants.withStack(for: "acme") { _ in } }
            _ = deletion
        }
        try await Self.waitUntil { deleted.value }
        #expect(try tenants.names().isEmpty)
        tenants.close()
    }

    @Test func aTaskWaitingForRoomCanBeCancelled() async throws {
        let temporary = try TemporaryDirectory()
        let tenants = try tenants(["a", "b"], maxOpen: 1, in: temporary)
        try await tenants.withStack(for: "a") { a in
            let waiting = Task.detached {
                try await tenants.withStack(for: "b") { _ in }
            }
            try await Task.sleep(for: .milliseconds(100))
            waiting.cancel()
            await #expect(throws: CancellationError.self) { try await waiting.value }
            #expect(a.isOpen)
            #expect(tenants.openStackCount == 1)
        }
        // The room is free again for b.
        try await tenants.withStack(for: "b") { _ in }
        #expect(openKeys(tenants) == ["b"])
        tenants.close()
    }

    @Test func deleteInsideTheTenantsOwnClosureIsRefused() async throws {
        let temporary = try TemporaryDirectory()
        let tenants = try tenants(["acme"], maxOpen: 2, in: temporary)
        try await tenants.withStack(for: "acme") { _ in
            let error = await #expect(throws: LiteRecordError.self) { try await tenants.delete("ACME") }
            #expect(error?.message.contains("wait for itself") == true)
        }
        #expect(try tenants.names() == ["acme"])
        tenants.close()
    }

    @Test func closeWaitsForTheClosuresStillHoldingStacks() async throws {
        let temporary = try TemporaryDirectory()
        let tenants = try tenants(["acme"], maxOpen: 2, in: temporary)
        let finished = Shared(false)
        let holder = Task.detached {
            try await tenants.withStack(for: "acme") { stack in
                try await Task.sleep(for: .milliseconds(300))
                try await TenantFixture.addNote("last", to: stack)
                finished.value = true
                return stack
            }
        }
        try await Self.waitUntil { tenants.openStackCount == 1 }
        // close() blocks its thread: run it on one of its own.
        let sawFinished = try await finishingOnThread(within: 10) {
            tenants.close()
            return finished.value
        }
        #expect(sawFinished == true)
        let stack = try await holder.value
        #expect(!stack.isOpen)
        let reopened = try RecordStack(storeAt: temporary.file("acme.sqlite"), entities: [TenantNote.self])
        #expect(try await TenantFixture.noteCount(reopened) == 1)
        try reopened.close()
    }

    /// Polls `condition` every 10 ms, suspended, for up to 10 s.
    static func waitUntil(_ condition: @Sendable () -> Bool) async throws {
        for _ in 0..<1000 where !condition() {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(condition())
    }
}
