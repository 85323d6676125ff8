import Foundation
import Synchronization
import Testing
@testable import LiteRecord

/// The writer gate (`WriterGate`): its holder may enter again, and no
/// other thread holds it meanwhile.
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
}
