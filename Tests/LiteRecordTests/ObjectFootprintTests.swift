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

    @Test func recordStateFitsInA96ByteAllocation() {
        let state = RecordState()
        // glibc hands out 96-byte chunks for requests up to 88 bytes.
        #expect(allocatedBytes(state) <= 88)
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
