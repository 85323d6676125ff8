import Foundation
import LiteRecord
import Testing

/// Values written by `@Entity` classes come back identical after the store is
/// closed and reopened, for every supported type.
@Suite struct EntityRoundTripTests {
    /// Saves `object` into a fresh store file, closes it, reopens the file with
    /// a new stack and returns the only stored record.
    private func roundTrip<T: Entity>(_ object: T) throws -> T {
        try withTemporaryDirectory { directory in
            let url = directory.appending(path: "RoundTrip.sqlite")
            let writer = try RecordStack(storeAt: url, entities: [T.self])
            let context = writer.newContext()
            context.insert(object)
            try context.save()
            try writer.close()

            let reader = try RecordStack(storeAt: url, entities: [T.self])
            defer { try? reader.close() }
            let all = try T.findAll(in: reader.newContext())
            try #require(all.count == 1)
            return all[0]
        }
    }

    @Test func attributeTypesFollowTheOverloadFamilies() {
        let types = Dictionary(uniqueKeysWithValues: AllTypes.attributes.map { ($0.name, $0.type) })
        let expected: [String: AttributeType] = [
            "bool": .bool, "int": .int, "int8": .int8, "int16": .int16, "int32": .int32, "int64": .int64,
            "uint": .uint, "uint8": .uint8, "uint16": .uint16, "uint32": .uint32, "uint64": .uint64,
            "double": .double, "float": .float, "string": .string, "data": .data, "date": .date,
            "uuid": .uuid, "url": .url, "decimal": .decimal,
            "mood": .string, "priority": .int, "address": .json, "tags": .json, "settings": .json,
            "optionalBool": .bool, "optionalInt": .int, "optionalInt8": .int8, "optionalInt64": .int64,
            "optionalUInt32": .uint32, "optionalDouble": .double, "optionalFloat": .float,
            "optionalString": .string, "optionalData": .data, "optionalDate": .date, "optionalUUID": .uuid,
            "optionalURL": .url, "optionalDecimal": .decimal, "optionalMood": .string,
            "optionalPriority": .int, "optionalAddress": .json, "optionalTags": .json,
        ]
        #expect(types == expected)
        let optional = Set(AllTypes.attributes.filter(\.isOptional).map(\.name))
        #expect(optional == Set(expected.keys.filter { $0.hasPrefix("optional") }))
        // Declaration order, which is the attribute index order; the
        // optionals whose spelling could be a to-one (`Mood?`,
        // `Optional<Priority>`, `Address?`) follow, as the compiler, not
        // the macro, makes them columns (see `EntityMember`).
        #expect(AllTypes.attributes.first?.name == "bool")
        #expect(AllTypes.attributes.suffix(4).map(\.name) == ["optionalTags", "optionalMood", "optionalPriority", "optionalAddress"])
    }

    @Test func extremeValues() throws {
        let object = AllTypes()
        object.bool = true
        object.int = .min
        object.int8 = .min
        object.int16 = .max
        object.int32 = .min
        object.int64 = .max
        object.uint = UInt(Int64.max)
        object.uint8 = .max
        object.uint16 = .max
        object.uint32 = .max
        object.uint64 = UInt64(Int64.max)
        object.double = .infinity
        object.float = -.greatestFiniteMagnitude
        object.string = "Zoë 👩‍💻 中文 — \"quoted\" 'single' \\ back\nslash\ttab"
        object.data = Data([0, 1, 2, 0xFF, 0])
        object.date = Date(timeIntervalSinceReferenceDate: 765_432_101.123_456_7)
        object.uuid = UUID()
        object.url = try #require(URL(string: "https://example.com/a%20b/%C3%A9?q=1&r=%2F#frag"))
        object.decimal = try #require(Decimal(string: "-12345678901234567890.123456789", locale: Locale(identifier: "en_US_POSIX")))
        object.mood = .grumpy
        object.priority = .high
        object.address = Address(
            street: "Hauptstraße 1", city: "Zürich", postcode: nil,
            location: .init(latitude: 47.376_886, longitude: -8.541_694), labels: ["home", "🏠", ""])
        object.tags = ["a", "", "ünï", "with, comma", "[bracket]"]
        object.settings = Settings(fontSize: 17)

        let read = try roundTrip(object)
        #expect(read.bool == true)
        #expect(read.int == .min)
        #expect(read.int8 == .min)
        #expect(read.int16 == .max)
        #expect(read.int32 == .min)
        #expect(read.int64 == .max)
        #expect(read.uint == UInt(Int64.max))
        #expect(read.uint8 == .max)
        #expect(read.uint16 == .max)
        #expect(read.uint32 == .max)
        #expect(read.uint64 == UInt64(Int64.max))
        #expect(read.double == .infinity)
        #expect(read.float == -.greatestFiniteMagnitude)
        #expect(read.string == object.string)
        #expect(read.data == object.data)
        #expect(read.date == object.date)
        #expect(read.uuid == object.uuid)
        #expect(read.url == object.url)
        #expect(read.decimal == object.decimal)
        #expect(read.mood == .grumpy)
        #expect(read.priority == .high)
        #expect(read.address == object.address)
        #expect(read.tags == object.tags)
        #expect(read.settings.fontSize == 17)
    }

    @Test func otherExtremes() throws {
        let object = AllTypes()
        object.int64 = .min
        object.int = .max
        object.double = -.infinity
        object.float = .infinity
        object.date = Date(timeIntervalSinceReferenceDate: -0.000_001)
        object.optionalDouble = Double.leastNonzeroMagnitude
        object.optionalInt64 = .min

        let read = try roundTrip(object)
        #expect(read.int64 == .min)
        #expect(read.int == .max)
        #expect(read.double == -.infinity)
        #expect(read.float == .infinity)
        #expect(read.date == object.date)
        #expect(read.optionalDouble == Double.leastNonzeroMagnitude)
        #expect(read.optionalInt64 == .min)
    }

    @Test func emptyValues() throws {
        let object = AllTypes()
        object.string = ""
        object.data = Data()
        object.tags = []
        object.optionalString = ""
        object.optionalData = Data()
        object.optionalTags = []

        let read = try roundTrip(object)
        #expect(read.string == "")
        #expect(read.data == Data())
        #expect(read.tags == [])
        #expect(read.optionalString == "")
        #expect(read.optionalData == Data())
        #expect(read.optionalTags == [])
    }

    @Test func nilOptionals() throws {
        let read = try roundTrip(AllTypes())
        #expect(read.optionalBool == nil)
        #expect(read.optionalInt == nil)
        #expect(read.optionalInt8 == nil)
        #expect(read.optionalInt64 == nil)
        #expect(read.optionalUInt32 == nil)
        #expect(read.optionalDouble == nil)
        #expect(read.optionalFloat == nil)
        #expect(read.optionalString == nil)
        #expect(read.optionalData == nil)
        #expect(read.optionalDate == nil)
        #expect(read.optionalUUID == nil)
        #expect(read.optionalURL == nil)
        #expect(read.optionalDecimal == nil)
        #expect(read.optionalMood == nil)
        #expect(read.optionalPriority == nil)
        #expect(read.optionalAddress == nil)
        #expect(read.optionalTags == nil)
    }

    @Test func presentOptionals() throws {
        let object = AllTypes()
        object.optionalBool = false
        object.optionalInt = 0
        object.optionalInt8 = -1
        object.optionalInt64 = .max
        object.optionalUInt32 = .max
        object.optionalDouble = 0.1
        object.optionalFloat = 0.25
        object.optionalString = "Ça va? ✓"
        object.optionalData = Data("bytes".utf8)
        object.optionalDate = Date(timeIntervalSince1970: 1_700_000_000.987_654)
        object.optionalUUID = UUID()
        object.optionalURL = URL(filePath: "/tmp/some file.txt")
        object.optionalDecimal = Decimal(string: "0.1", locale: Locale(identifier: "en_US_POSIX"))
        object.optionalMood = .cheerful
        object.optionalPriority = .low
        object.optionalAddress = Address(street: "Rue", city: "Paris", postcode: "75001", location: nil, labels: [])
        object.optionalTags = ["x"]

        let read = try roundTrip(object)
        #expect(read.optionalBool == false)
        #expect(read.optionalInt == 0)
        #expect(read.optionalInt8 == -1)
        #expect(read.optionalInt64 == .max)
        #expect(read.optionalUInt32 == .max)
        #expect(read.optionalDouble == 0.1)
        #expect(read.optionalFloat == 0.25)
        #expect(read.optionalString == "Ça va? ✓")
        #expect(read.optionalData == Data("bytes".utf8))
        #expect(read.optionalDate == object.optionalDate)
        #expect(read.optionalUUID == object.optionalUUID)
        #expect(read.optionalURL == object.optionalURL)
        #expect(read.optionalDecimal == object.optionalDecimal)
        #expect(read.optionalMood == .cheerful)
        #expect(read.optionalPriority == .low)
        #expect(read.optionalAddress == object.optionalAddress)
        #expect(read.optionalTags == ["x"])
    }

    @Test func enumsAreStoredAsRawValuesNotJSON() throws {
        let object = AllTypes()
        object.mood = .cheerful
        object.priority = .high
        let stack = try RecordStack(inMemoryWith: [AllTypes.self])
        let context = stack.newContext()
        context.insert(object)
        try context.save()
        #expect(try AllTypes.find(byAttribute: "mood", withValue: "cheerful", in: context).count == 1)
        #expect(try AllTypes.find(byAttribute: "priority", withValue: 2, in: context).count == 1)
    }

    @Test func unsignedValueAboveInt64MaxIsRefused() throws {
        let object = AllTypes()
        object.uint64 = .max
        let stack = try RecordStack(inMemoryWith: [AllTypes.self])
        let context = stack.newContext()
        context.insert(object)
        let error = #expect(throws: LiteRecordError.self) { try context.save() }
        #expect(error?.kind == .validationFailed)
    }

    @Test func rawValueThatNoLongerMatchesACaseIsADecodingError() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appending(path: "Feelings.sqlite")
            let writer = try RecordStack(storeAt: url, entities: [FeelingAsText.self])
            let context = writer.newContext()
            let old = FeelingAsText()
            old.mood = "melancholic"
            context.insert(old)
            try context.save()
            try writer.close()

            let reader = try RecordStack(storeAt: url, entities: [FeelingAsEnum.self])
            defer { try? reader.close() }
            let error = #expect(throws: LiteRecordError.self) {
                try FeelingAsEnum.findAll(in: reader.newContext())
            }
            #expect(error?.kind == .decodingFailed)
            #expect(error?.message.contains("melancholic") == true)
        }
    }

    @Test func optionalRawValueThatNoLongerMatchesACaseIsADecodingError() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appending(path: "Feelings.sqlite")
            let writer = try RecordStack(storeAt: url, entities: [FeelingAsText.self])
            let context = writer.newContext()
            let old = FeelingAsText()
            old.mood = "calm"
            old.optionalMood = "wistful"
            context.insert(old)
            try context.save()
            try writer.close()

            let reader = try RecordStack(storeAt: url, entities: [FeelingAsEnum.self])
            defer { try? reader.close() }
            let error = #expect(throws: LiteRecordError.self) {
                try FeelingAsEnum.findAll(in: reader.newContext())
            }
            #expect(error?.kind == .decodingFailed)
        }
    }

    @Test func inferredTypes() throws {
        #expect(Inferred.attributes.map(\.type) == [.int, .double, .bool, .json, .json, .json, .date, .int, .double])
        #expect(Inferred.attributes.first?.name == "default")
        let object = Inferred()
        object.default = 7
        object.ids = [UUID()]
        object.counts = ["a": 1]
        object.maybe = 3
        let read = try roundTrip(object)
        #expect(read.default == 7)
        #expect(read.ratio == -0.5)
        #expect(read.flag)
        #expect(read.words == ["a", "b"])
        #expect(read.ids == object.ids)
        #expect(read.counts == ["a": 1])
        #expect(read.stamp == object.stamp)
        #expect(read.maybe == 3)
        #expect(read.level == 1)
        #expect(read.cache == [1, 2, 3])
    }

    @Test func defaultValuesAreStoredForms() throws {
        let byName = Dictionary(uniqueKeysWithValues: AllTypes.attributes.map { ($0.name, $0) })
        #expect(try byName["mood"]?.defaultValue?() == .text("calm"))
        #expect(try byName["priority"]?.defaultValue?() == .integer(1))
        #expect(try byName["double"]?.defaultValue?() == .real(0))
        #expect(try byName["tags"]?.defaultValue?() == .text("[]"))
        #expect(try byName["optionalPriority"]?.defaultValue?() == .null)
        #expect(byName["optionalString"]?.defaultValue == nil)
    }
}
