import Foundation
import Testing
@testable import LiteRecord

/// Opening a store whose model is unchanged compares the recorded canonical
/// text instead of decoding the stored model (`storedModelIsUnchanged`). It
/// is an optimization, so it must give the same answer as the plain path
/// (`storedModel()`, then fingerprint and canonical text compared) in every
/// case: these tests compare the two.
@Suite struct MetadataFastPathTests {
    private func plainPathMatches(_ connection: Connection, _ model: Model) throws -> Bool {
        guard case .model(let fingerprint, let schema) = try connection.storedModel() else { return false }
        return fingerprint == model.fingerprint && schema.canonicalText == model.schema.canonicalText
    }

    private func bothPaths(_ url: URL, _ model: Model) throws -> (fast: Bool, plain: Bool) {
        let connection = try Connection(path: url.path, options: .init(readOnly: true, create: false))
        defer { connection.close() }
        return (try connection.storedModelIsUnchanged(from: model), try plainPathMatches(connection, model))
    }

    @Test func bothPathsAgreeForEveryPairOfModels() throws {
        let folder = try TemporaryDirectory()
        let entityLists: [[any Entity.Type]] = [
            [HandWrittenPerson.self], [HandWrittenPersonV2.self], [HandWrittenPerson.self, HandWrittenNote.self],
        ]
        let models = try entityLists.map { try Model(entities: $0) }
        for (index, written) in models.enumerated() {
            let url = folder.file("store\(index).sqlite")
            try RecordStack(storeAt: url, entities: entityLists[index]).close()
            for opened in models {
                let answer = try bothPaths(url, opened)
                #expect(answer.fast == answer.plain, "store of model \(index), opened with \(opened.fingerprint)")
                #expect(answer.plain == (opened.fingerprint == written.fingerprint))
            }
        }
    }

    @Test func aStoreWithoutTheRecordedTextTakesThePlainPath() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("older.sqlite")
        let stack = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
        let context = stack.newContext()
        context.insert(HandWrittenPerson(name: "Ann", age: 31))
        try context.save()
        try stack.close()
        // As a store written before the canonical text was recorded.
        let connection = try Connection(path: url.path)
        try connection.execute("DELETE FROM \(SQLIdentifier(Model.metadataTable).quoted) WHERE key = '\(MetadataKey.canonicalSchema)'")
        connection.close()

        let model = try Model(entities: [HandWrittenPerson.self])
        let answer = try bothPaths(url, model)
        #expect(!answer.fast)
        #expect(answer.plain)
        let reopened = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
        #expect(try HandWrittenPerson.findAll(in: reopened.newContext()).map(\.name) == ["Ann"])
        try reopened.close()
    }

    @Test func aMigrationRecordsTheNewModelsText() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("migrated.sqlite")
        try RecordStack(storeAt: url, entities: [HandWrittenPerson.self]).close()
        let changed = try Model(entities: [HandWrittenPersonV2.self])
        #expect(try bothPaths(url, changed) == (false, false))
        // Refused without a migration: the fast path did not hide the change.
        #expect(throws: LiteRecordError.self) { try RecordStack(storeAt: url, entities: [HandWrittenPersonV2.self]) }
        try RecordStack(storeAt: url, entities: [HandWrittenPersonV2.self], migration: .automatic).close()
        #expect(try bothPaths(url, changed) == (true, true))
        #expect(try bothPaths(url, try Model(entities: [HandWrittenPerson.self])) == (false, false))
    }
}
