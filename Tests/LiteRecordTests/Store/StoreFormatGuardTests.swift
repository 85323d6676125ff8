import Foundation
import Testing
@testable import LiteRecord

/// A store a later LiteRecord wrote in a layout this one does not know is
/// refused by every open, writable or read-only, and left byte for byte as
/// it was: a future format protects itself from today's writers.
@Suite struct StoreFormatGuardTests {
    private func storeOfAFutureFormat(_ folder: TemporaryDirectory) throws -> URL {
        let url = folder.file("future.sqlite")
        try RecordStack(storeAt: url, entities: [HandWrittenPerson.self]).close()
        let connection = try Connection(path: url.path)
        try connection.setMetadata(MetadataKey.formatVersion, String(StoreFormat.current + 1))
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.close()
        return url
    }

    @Test(arguments: [false, true])
    func aLaterFormatIsRefusedAndLeftUntouched(readOnly: Bool) throws {
        let folder = try TemporaryDirectory()
        let url = try storeOfAFutureFormat(folder)
        let before = try Data(contentsOf: url)
        let error = expectError(.storeUnavailable) {
            _ = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self], readOnly: readOnly)
        }
        #expect(error?.message.contains("later LiteRecord in store format \(StoreFormat.current + 1)") == true, "\(String(describing: error))")
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func theCurrentFormatOpens() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("now.sqlite")
        try RecordStack(storeAt: url, entities: [HandWrittenPerson.self]).close()
        try RecordStack(storeAt: url, entities: [HandWrittenPerson.self]).close()
        try RecordStack(storeAt: url, entities: [HandWrittenPerson.self], readOnly: true).close()
    }
}
