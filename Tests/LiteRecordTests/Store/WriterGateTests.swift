import Foundation
import Synchronization
import Testing
@testable import LiteRecord

/// The writer gate (`WriterGate`): its holder may enter again, no other
/// thread holds it meanwhile, and the open transaction's participants
/// (`WriterState`) take back what a rolled-back savepoint or transaction
/// noted.
@Suite struct WriterGateTests {
    /// What another thread sees of a gate: whether it holds it, and whether
    /// it can take it without waiting (released again at once).
    private struct Seen: Equatable {
        var holds: Bool
        var took: Bool
    }

    private func seenFromAnotherThread(_ gate: WriterGate) -> Seen {
        let seen = Mutex(Seen(holds: false, took: false))
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let holds = gate.isHeldByCurrentThread
            let took = gate.tryAcquire()
            if took { gate.release() }
            seen.withLock { $0 = Seen(holds: holds, took: took) }
            done.signal()
        }
        thread.start()
        done.wait()
        return seen.withLock { $0 }
    }

    @Test func theHolderEntersAgainAndNoOtherThreadHoldsItMeanwhile() {
        let gate = WriterGate()
        #expect(!gate.isHeldByCurrentThread)
        gate.acquire()
        #expect(gate.tryAcquire())
        #expect(gate.isHeldByCurrentThread)
        #expect(seenFromAnotherThread(gate) == Seen(holds: false, took: false))
        gate.release()
        // Entered twice, released once: still the holder's.
        #expect(gate.isHeldByCurrentThread)
        #expect(seenFromAnotherThread(gate) == Seen(holds: false, took: false))
        gate.release()
        #expect(!gate.isHeldByCurrentThread)
        #expect(seenFromAnotherThread(gate) == Seen(holds: false, took: true))
    }

    @Test func withStateHoldsTheGateOnlyForItsBodyAndTheFreeVariantNeverWaits() {
        let gate = WriterGate()
        let inside = gate.withState { _ in gate.isHeldByCurrentThread }
        #expect(inside)
        #expect(!gate.isHeldByCurrentThread)
        #expect(gate.withStateIfFree { _ in 1 } == 1)
        gate.acquire()
        let fromAnotherThread = Mutex<Int?>(0)
        let done = DispatchSemaphore(value: 0)
        Thread {
            fromAnotherThread.withLock { $0 = gate.withStateIfFree { _ in 1 } }
            done.signal()
        }.start()
        done.wait()
        gate.release()
        #expect(fromAnotherThread.withLock { $0 } == nil)
    }

    @Test func theWriterConnectionLivesInTheGatesStateUntilTheStoreCloses() throws {
        let store = try Store(location: .memory, model: Model(entities: [HandWrittenPerson.self]))
        #expect(store.gate.withState { $0.connection != nil })
        #expect(try store.withWriter("reading") { state, connection in state.connection === connection })
        try store.close()
        #expect(store.gate.withState { $0.connection == nil })
        #expect(!store.isOpen)
    }

    @Test func aSavepointRollbackTakesBackWhatFollowedItsMarkOnly() {
        let state = WriterState()
        state.history.schemaVersion = 7
        state.pendingChanges.append(ChangeSet(inserted: [RecordID(entityName: "Note", rowID: 1)]))
        let mark = state.mark
        state.pendingChanges.append(ChangeSet(deleted: [RecordID(entityName: "Note", rowID: 2)]))
        state.rollback(to: mark)
        #expect(state.pendingChanges.merged == ChangeSet(inserted: [RecordID(entityName: "Note", rowID: 1)]))
        // The recording decided in the transaction stands: only its
        // rollback can take that back.
        #expect(state.history.schemaVersion == 7)
    }

    @Test func aTransactionRollbackTakesBackEverythingWithTheHistoryDecision() {
        let state = WriterState()
        state.history.schemaVersion = 7
        state.pendingChanges.append(ChangeSet(inserted: [RecordID(entityName: "Note", rowID: 1)]))
        state.rollbackTransaction()
        #expect(state.pendingChanges.merged.isEmpty)
        #expect(state.history.schemaVersion == nil)
    }

    @Test func aCommitHandsOverTheMergedChangesAndLeavesNothingPending() {
        let state = WriterState()
        state.pendingChanges.append(ChangeSet(inserted: [RecordID(entityName: "Note", rowID: 1)]))
        state.pendingChanges.append(ChangeSet(updated: [RecordID(entityName: "Note", rowID: 3)]))
        let committed = state.pendingChanges.commit()
        #expect(committed.inserted == [RecordID(entityName: "Note", rowID: 1)])
        #expect(committed.updated == [RecordID(entityName: "Note", rowID: 3)])
        #expect(state.pendingChanges.mark == 0)
    }
}
