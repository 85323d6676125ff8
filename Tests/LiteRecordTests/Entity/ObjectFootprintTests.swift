#if canImport(Glibc)
import Glibc
import Testing
@testable import LiteRecord

// glibc's <malloc.h>, which the Glibc module does not import.
@_silgen_name("malloc_usable_size")
private func malloc_usable_size(_ pointer: UnsafeMutableRawPointer?) -> Int

/// What a context keeps per fetched object, measured with the allocator:
/// a fetch of 100,000 objects pays these sizes 100,000 times, so a field
/// added without thought shows up here before it shows up in the benchmark.
@Suite struct ObjectFootprintTests {
    private func allocatedBytes(_ object: AnyObject) -> Int {
        malloc_usable_size(Unmanaged.passUnretained(object).toOpaque())
    }

    @Test func recordStateFitsInAn80ByteAllocation() {
        let state = RecordState()
        // glibc hands out 80-byte chunks for requests up to 72 bytes.
        #expect(allocatedBytes(state) <= 72)
    }

    @Test func changesBeyondThePackedBitsAreKept() {
        let state = RecordState()
        let indexes = [0, 5, 31, 32, 40, 63, 64, 100]
        state.changes = AttributeMask(indexes)
        #expect(state.changes.indexes == indexes)
        #expect(state.extras != nil, "indexes from 32 on live out of line")
        state.changes = AttributeMask([1, 31])
        #expect(state.changes.indexes == [1, 31])
        #expect(state.extras?.changedAbove32 == nil)
        state.changes.removeAll()
        #expect(state.changes.isEmpty)
    }

    @Test func packedFieldsAreIndependent() {
        let state = RecordState()
        #expect(state.rowID == nil)
        #expect(state.isObservable)
        #expect(!state.isStale)
        state.rowID = 0
        #expect(state.rowID == 0, "row id 0 is a row id, not its absence")
        state.rowID = .min
        state.isStale = true
        state.isObservable = false
        #expect(state.rowID == .min)
        #expect(state.isStale)
        #expect(!state.isObservable)
        state.isStale = false
        #expect(state.rowID == .min)
        #expect(!state.isObservable)
        state.detach()
        #expect(state.rowID == nil)
        #expect(state.isObservable)
        #expect(!state.isStale)
    }

    @Test func rarelyNeededStateIsMadeOnlyWhenUsed() {
        let state = RecordState()
        state.snapshot = nil
        state.storedValues = nil
        #expect(state.extras == nil, "clearing what was never set makes nothing")
        state.snapshot = [.integer(1)]
        #expect(state.snapshot == [.integer(1)])
        #expect(state.storedValues == nil)
        state.detach()
        #expect(state.snapshot == nil)
        #expect(state.storedValues == nil)
    }

    @Test func theIdentityMapCostsAtMostFortyBytesPerObjectAtAnySize() {
        // 16 bytes a slot, at least 2/5 of the slots in use once grown.
        for count in [1_000, 98_304, 100_000, 131_072] {
            let table = ObjectTable(of: HandWrittenNote.self)
            table.reserve(count)
            #expect(table.slotCount * 16 <= max(count * 40, 16 * 16), "\(count) objects")
        }
    }
}
#endif
