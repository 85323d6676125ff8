import Foundation
import Testing
import LiteRecord

/// An attribute added in a later model version with a default that differs
/// at each call (`= UUID()`) gets one value per stored record, as objects
/// created in code do; a constant default stays one value.
@Suite struct MigrationPerRecordDefaultTests {
    @Entity(name: "Gadget") final class GadgetV1 {
        var name = ""
    }

    @Entity(name: "Gadget") final class GadgetV2 {
        var name = ""
        @Attribute(.unique) var identifier = UUID()
        var token = UUID()
        var createdAt = Date()
        var kind = "plain"
    }

    @Test func eachStoredRecordGetsItsOwnDefault() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Gadgets.sqlite")
        let old = try RecordStack(storeAt: url, entities: [GadgetV1.self])
        let context = old.newContext()
        for name in ["a", "b", "c"] {
            let gadget = GadgetV1()
            gadget.name = name
            context.insert(gadget)
        }
        try context.save()
        try old.close()

        let stack = try RecordStack(storeAt: url, entities: [GadgetV2.self], migration: .automatic)
        defer { try? stack.close() }
        let gadgets = try stack.newContext().fetch(FetchRequest<GadgetV2>())
        #expect(gadgets.count == 3)
        #expect(Set(gadgets.map(\.identifier)).count == 3, "a .unique UUID() default is one value per record")
        #expect(Set(gadgets.map(\.token)).count == 3)
        #expect(Set(gadgets.map(\.kind)) == ["plain"])
        let report = try #require(stack.lastMigrationReport)
        #expect(report.actions.contains { $0.contains("their own default value of identifier") })
    }
}
