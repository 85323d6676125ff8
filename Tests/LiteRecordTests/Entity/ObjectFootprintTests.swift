#if canImport(Glibc)
import Glibc
import Testing
@testable import LiteRecord

// glibc's <malloc.h>, which the Glibc module does not import.
@_silgen_name("malloc_usable_size")
private func malloc_usable_size(_ pointer: UnsafeMutableRawPointer?) -> Int

/// An entity with the fields of a small row, for the object's size.
@Entity final class FootprintItem {
    var name = ""
    var score = 0
}

/// What a context keeps per fetched object, measured with the allocator:
/// a fetch of 100,000 objects pays these sizes 100,000 times, so a field
/// added without thought shows up here before it shows up in the benchmark.
@Suite struct ObjectFootprintTests {
    private func allocatedBytes(_ object: AnyObject) -> Int {
        malloc_usable_size(Unmanaged.passUnretained(object).toOpaque())
    }

    @Test func recordStateIsSixWordsInsideTheObject() {
        // Five words (context, version, relations, the observation group or
        // extras, row id), then the packed small fields in the sixth.
        #expect(MemoryLayout<RecordState.OutOfLine?>.size == 8)
        #expect(MemoryLayout<RecordState>.size <= 48)
    }

    @Test func anObjectIsOneAllocationHoldingItsState() {
        // 16 bytes of header, the 48-byte state, a String and an Int: an
        // 88-byte request, which glibc serves from a 96-byte chunk (88
        // usable). A state of its own would be a second block, which
        // `memory-plain` in Benchmarks/ counts.
        let item = FootprintItem()
        #expect(allocatedBytes(item) >= 16 + MemoryLayout<RecordState>.size + 24)
        #expect(allocatedBytes(item) <= 88)
    }

    @Test func theObservationGroupAndTheExtrasShareAWord() {
        var state = RecordState()
        state.observationAccess(.attribute(0))
        let group = state.observationGroup
        #expect(group != nil)
        #expect(state.extras == nil)
        state.snapshot = [.integer(1)]
        #expect(state.extras != nil, "extras made beside the group")
        #expect(state.observationGroup === group, "the group moved into the extras")
        #expect(state.snapshot == [.integer(1)])
        state.changes = AttributeMask([40])
        #expect(state.observationGroup === group)
        #expect(state.changes.indexes == [40])

        var later = RecordState()
        later.snapshot = [.integer(2)]
        later.observationAccess(.attribute(0))
        #expect(later.observationGroup != nil, "a group taken after the extras lives in them")
        #expect(later.extras?.observationGroup === later.observationGroup)
        #expect(later.snapshot == [.integer(2)])
    }

    @Test func changesBeyondThePackedBitsAreKept() {
        var state = RecordState()
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
        var state = RecordState()
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
        var state = RecordState()
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
