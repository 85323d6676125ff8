import Foundation
import LiteRecord

/// The entity of the tenants' tests.
@Entity(name: "TenantNote")
final class TenantNote {
    var title = ""
}

/// `TenantNote` with `title` turned into an integer: a migration LiteRecord
/// refuses (a string does not become an int).
@Entity(name: "TenantNote")
final class TenantNoteRetyped {
    var title = 0
}

/// Helpers the tenants' tests share.
enum TenantFixture {
    /// Adds a note called `title` to `stack`.
    static func addNote(_ title: String, to stack: RecordStack) async throws {
        try await stack.write { context in TenantNote.create(in: context).title = title }
    }

    /// How many notes `stack` holds.
    static func noteCount(_ stack: RecordStack) async throws -> Int {
        try await stack.read { context in try TenantNote.count(in: context) }
    }
}
