import Foundation
import Testing
@testable import LiteRecord

/// A failed first open removes what it created, so that
/// the next open does not take an empty file for a new store. It must remove
/// only what this open created: another process may have created and
/// committed a store at the path between this open's look at the path and
/// SQLite's open of it.
@Suite(.tags(.threads)) struct StoreOpenRaceTests {
    @Test func aFailedFirstOpenKeepsAStoreAnotherConnectionCreatedMeanwhile() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Race.sqlite")
        // Runs after this open decided the file was not there and before
        // SQLite opens it: another "process" creates a store with another model.
        let error = StoreFileCreation.$afterPreparing.withValue({ url in
            StoreFileCreation.$afterPreparing.withValue(nil) {
                let other = try? RecordStack(storeAt: url, entities: [Base.Note.self])
                let context = other?.newContext()
                context?.insert(Base.Note(["title": .text("theirs")]))
                try? context?.save()
                try? other?.close()
            }
        }) {
            // This open's model differs: it fails with a model mismatch.
            #expect(throws: LiteRecordError.self) { try RecordStack(storeAt: url, entities: [Base.Person.self]) }
        }
        #expect(error?.kind == .modelMismatch, "\(String(describing: error))")
        #expect(FileManager.default.fileExists(atPath: url.path), "the other connection's store was deleted")
        let theirs = try RecordStack(storeAt: url, entities: [Base.Note.self])
        #expect(try theirs.all(Base.Note.self).map { $0["title"] } == [.text("theirs")])
        try theirs.close()
    }

    /// What the earlier fix still does: a first open that fails
    /// on its own leaves nothing behind.
    @Test func aFailedFirstOpenOfItsOwnFileRemovesIt() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Own.sqlite")
        #expect(throws: LiteRecordError.self) {
            try RecordStack(storeAt: url, entities: [Base.Note.self], migration: .plan(MigrationPlan().step("a") { _ in }.step("a") { _ in }))
        }
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }
}
