import Foundation
import LiteRecord
import Testing

// The README's example, verbatim, so it cannot rot.
@Entity final class Note {
    var title = ""
    var stars = 0
}

@Suite struct ReadmeExampleTests {
    @Test @MainActor func readmeExampleRuns() throws {
        let folder = try TemporaryDirectory()
        try RecordStack.withDefault(nil) {
            RecordStack.locator = StoreLocator(
                applicationName: "Readme", documentsDirectory: folder.file("Documents"),
                applicationSupportDirectory: folder.file("Support"))

            // --- README.md ---
            try RecordStack.setup(storeNamed: "Notes", entities: [Note.self])
            let note = try Note.create()
            note.title = "Groceries"
            try note.save()
            let favourites = try Note.findAll(matching: #Predicate { $0.stars > 3 })
            // --- end ---

            #expect(favourites.isEmpty)
            #expect(try Note.findAll().map(\.title) == ["Groceries"])
            #expect(FileManager.default.fileExists(atPath: folder.file("Support/Readme/Notes.sqlite").path))
            try RecordStack.cleanUp()
        }
    }
}
