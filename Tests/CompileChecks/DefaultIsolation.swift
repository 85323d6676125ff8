// The entities of a project whose default isolation is the
// main actor (new Xcode app projects; `.defaultIsolation(MainActor.self)`),
// used from the main actor and from a background write.
import Foundation
import LiteRecord

@Entity final class Note {
    var title = ""
    var createdAt = Date()
    var folder: Folder?
    init() {}
}

@Entity final class Folder {
    var name = ""
    var notes: [Note] = []
}

@Entity public final class Reminder {
    public var text = ""
    @Attribute(.unique) var identifier = UUID()
    @Transient var isExpanded = false
    public init() {}
    init(text: String) { self.text = text }
}

@MainActor func useOnTheMainActor() throws {
    let note = Note()
    note.title = "Groceries"
    try note.save()
    _ = try Note.findAll(matching: #Predicate { $0.title == "Groceries" })
    _ = try Folder.create()
    _ = note == Note()
}

func useInTheBackground(_ stack: RecordStack) async throws {
    try await stack.write { context in
        let reminder = Reminder.create(in: context)
        reminder.text = "Call"
        _ = try Note.count(in: context)
    }
}
