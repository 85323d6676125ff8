import Foundation
import LiteRecord
import Testing

/// A value either comes back from the store bit for bit or the save refuses it
/// with `.validationFailed` naming the attribute; SQLite never changes one
/// silently.
@Suite struct ValueFidelityTests {
    enum StoreKind: CaseIterable { case file, memory }

    /// Saves `object`, then reads it back through a new stack (file) or a new
    /// context (memory), so nothing comes from an identity map.
    private func roundTrip(_ object: AllTypes, in kind: StoreKind) throws -> AllTypes {
        switch kind {
        case .memory:
            let stack = try RecordStack(inMemoryWith: [AllTypes.self])
            defer { try? stack.close() }
            let context = stack.newContext()
            context.insert(object)
            try context.save()
            let all = try AllTypes.findAll(in: stack.newContext())
            try #require(all.count == 1)
            return all[0]
        case .file:
            return try withTemporaryDirectory { directory in
                let url = directory.appending(path: "Fidelity.sqlite")
                let writer = try RecordStack(storeAt: url, entities: [AllTypes.self])
                let context = writer.newContext()
                context.insert(object)
                try context.save()
                try writer.close()
                let reader = try RecordStack(storeAt: url, entities: [AllTypes.self])
                defer { try? reader.close() }
                let all = try AllTypes.findAll(in: reader.newContext())
                try #require(all.count == 1)
                return all[0]
            }
        }
    }

    /// Saves `object` expecting a refusal; returns the error's message.
    private func refusal(_ object: AllTypes, in kind: StoreKind) throws -> String {
        let directory = try TemporaryDirectory()
        let stack =
            try kind == .memory
            ? RecordStack(inMemoryWith: [AllTypes.self])
            : RecordStack(storeAt: directory.file("Refusal.sqlite"), entities: [AllTypes.self])
        defer { try? stack.close() }
        let context = stack.newContext()
        context.insert(object)
        if case .failure(let error) = try Reliability.attempt({ try context.save() }) {
            #expect(error.kind == .validationFailed, "\(error)")
            #expect(context.hasChanges, "a refused save keeps the context's changes")
            #expect(try AllTypes.count(in: stack.newContext()) == 0, "nothing was written")
            return error.message
        }
        Issue.record("the save was expected to be refused")
        return ""
    }

    static let doubles: [Double] = [
        .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude, .leastNormalMagnitude.nextDown,
        .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .infinity, -.infinity, 0, 1, -1, .pi, Double(bitPattern: 0x0000_0B8B_0000_0001), 0.1,
        Double(Int64.max), Double(Int64.min), 9_007_199_254_740_992,
    ]

    @Test(arguments: StoreKind.allCases)
    func doublesAndFloatsRoundTripBitForBit(_ kind: StoreKind) throws {
        for value in Self.doubles {
            // Tiny negative doubles become -0.0 as Float, which is refused.
            let float = Float(value) == 0 ? 0 : Float(value)
            let object = AllTypes()
            object.double = value
            object.optionalDouble = value
            object.float = float
            object.optionalFloat = float
            let read = try roundTrip(object, in: kind)
            #expect(read.double.bitPattern == value.bitPattern, "\(value)")
            #expect(read.optionalDouble?.bitPattern == value.bitPattern, "\(value)")
            #expect(read.float.bitPattern == float.bitPattern, "\(float)")
            #expect(read.optionalFloat?.bitPattern == float.bitPattern, "\(float)")
        }
        for value: Float in [.leastNonzeroMagnitude, .leastNormalMagnitude.nextDown, .greatestFiniteMagnitude, -.infinity] {
            let object = AllTypes()
            object.float = value
            let read = try roundTrip(object, in: kind)
            #expect(read.float.bitPattern == value.bitPattern, "\(value)")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func negativeZeroIsRefusedNamingTheAttribute(_ kind: StoreKind) throws {
        let cases: [(String, (AllTypes) -> Void)] = [
            ("AllTypes.double", { $0.double = -0.0 }),
            ("AllTypes.float", { $0.float = -0.0 }),
            ("AllTypes.optionalDouble", { $0.optionalDouble = -0.0 }),
            ("AllTypes.optionalFloat", { $0.optionalFloat = -0.0 }),
        ]
        for (attribute, assign) in cases {
            let object = AllTypes()
            assign(object)
            let message = try refusal(object, in: kind)
            #expect(message.contains(attribute), "\(message)")
            #expect(message.contains("-0.0"), "\(message)")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func nanDateIsRefusedNamingTheAttribute(_ kind: StoreKind) throws {
        let nan = Date(timeIntervalSinceReferenceDate: .nan)
        for (attribute, assign) in [
            ("AllTypes.date", { (object: AllTypes) in object.date = nan }),
            ("AllTypes.optionalDate", { (object: AllTypes) in object.optionalDate = nan }),
        ] {
            let object = AllTypes()
            assign(object)
            let message = try refusal(object, in: kind)
            #expect(message.contains(attribute), "\(message)")
            #expect(message.contains("NaN"), "\(message)")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func farDatesRoundTrip(_ kind: StoreKind) throws {
        let intervals: [Double] = [
            -.greatestFiniteMagnitude, .greatestFiniteMagnitude, .infinity, -.infinity, .leastNonzeroMagnitude,
            Date.distantPast.timeIntervalSinceReferenceDate, Date.distantFuture.timeIntervalSinceReferenceDate,
            -63_113_904_000 * 1000, 1e300,
        ]
        for interval in intervals {
            let object = AllTypes()
            object.date = Date(timeIntervalSinceReferenceDate: interval)
            object.optionalDate = object.date
            let read = try roundTrip(object, in: kind)
            #expect(read.date.timeIntervalSinceReferenceDate.bitPattern == interval.bitPattern, "\(interval)")
            #expect(read.optionalDate == object.date)
        }
        // -0.0 seconds is the reference date itself: it comes back equal.
        let object = AllTypes()
        object.date = Date(timeIntervalSinceReferenceDate: -0.0)
        #expect(try roundTrip(object, in: kind).date == Date(timeIntervalSinceReferenceDate: 0))
    }

    /// A setter keeps a new value that `==` calls equal to the old one but the
    /// store does not: -0.0 over 0.0, "e\u{301}" over "\u{E9}".
    @Test func settersKeepValuesThatOnlyLookEqual() throws {
        let stack = try RecordStack(inMemoryWith: [AllTypes.self])
        defer { try? stack.close() }
        let context = stack.newContext()
        let object = AllTypes()
        object.string = "caf\u{E9}"
        object.optionalString = "caf\u{E9}"
        context.insert(object)
        try context.save()

        object.string = "cafe\u{301}"
        object.optionalString = "cafe\u{301}"
        #expect(context.hasChanges)
        try context.save()
        let read = try #require(try AllTypes.findAll(in: stack.newContext()).first)
        #expect(Array(read.string.utf8) == Array("cafe\u{301}".utf8))
        #expect(read.optionalString.map { Array($0.utf8) } == Array("cafe\u{301}".utf8))

        object.double = -0.0
        #expect(object.double.sign == .minus, "the setter kept -0.0")
        let error = try #require(throws: LiteRecordError.self) { try context.save() }
        #expect(error.kind == .validationFailed && error.message.contains("AllTypes.double"), "\(error)")
    }

    /// Refusing to store -0.0 does not stop a query from comparing with it:
    /// SQL, like Swift, calls it equal to 0.0.
    @Test func queriesMayStillCompareWithNegativeZero() throws {
        let stack = try RecordStack(inMemoryWith: [AllTypes.self])
        defer { try? stack.close() }
        let context = stack.newContext()
        context.insert(AllTypes())
        try context.save()
        #expect(try AllTypes.find(byAttribute: "double", withValue: -0.0, in: context).count == 1)
        #expect(try AllTypes.fetch(sql: "\"float\" = ?", arguments: [Float(-0.0)], in: context).count == 1)
        let zero = -0.0
        #expect(try AllTypes.count(matching: #Predicate<AllTypes> { $0.double == zero }, in: context) == 1)
    }
}
