import Testing
@testable import LiteRecord

/// `ReaderHolders`, the reader pool's count of readers per thread, keeps
/// the counts the `[UInt: Int]` it replaced kept: compared over random
/// sequences of acquisitions and releases.
@Suite struct ReaderHoldersTests {
    @Test func countsAsADictionaryDoes() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var holders = ReaderHolders()
            var reference: [UInt: Int] = [:]
            for _ in 0..<60 {
                let thread = UInt.random(in: 1...5, using: &generator)
                if Bool.random(using: &generator) {
                    holders.add(thread)
                    reference[thread, default: 0] += 1
                } else {
                    holders.remove(thread)
                    if let held = reference[thread] { reference[thread] = held > 1 ? held - 1 : nil }
                }
                for probe in UInt(0)...6 {
                    #expect(holders.count(of: probe) == reference[probe] ?? 0)
                }
            }
        }
    }
}
