import Foundation
import LiteRecord
import Testing

/// A stored property starts at the value its declaration gives it, optional
/// or not, and an initializer's assignment wins over it. (An optional with an
/// initial value used to start as `nil`: its `T?` backing storage started as
/// `nil` by itself, so Swift never ran the `init` accessor with the value.)
@Suite struct InitialValueTests {
    enum Shade: String, Codable, Sendable { case light, dark }
    struct Size: Codable, Equatable, Sendable { var width = 1, height = 2 }

    @Entity final class Defaults {
        var email: String? = "ann@example.com"
        var age: Int? = 31
        var nickname: String?
        var shade: Shade? = .dark
        var size: Size? = Size(width: 3, height: 4)
        var plain = "plain"
        var optionalURL: URL? = URL(string: "https://example.com/a")

        init() {}
        init(email: String?) { self.email = email }
    }

    @Test func optionalsStartAtTheirInitialValue() {
        let object = Defaults()
        #expect(object.email == "ann@example.com")
        #expect(object.age == 31)
        #expect(object.nickname == nil)
        #expect(object.shade == .dark)
        #expect(object.size == Size(width: 3, height: 4))
        #expect(object.plain == "plain")
        #expect(object.optionalURL == URL(string: "https://example.com/a"))
    }

    @Test func anInitializersAssignmentWins() {
        #expect(Defaults(email: nil).email == nil)
        #expect(Defaults(email: "bob@example.com").email == "bob@example.com")
        #expect(Defaults(email: nil).age == 31)
    }

    @Test @MainActor func initialValuesAreSavedAndReadBack() throws {
        let stack = try RecordStack(inMemoryWith: [Defaults.self])
        defer { try? stack.close() }
        let context = stack.newContext()
        context.insert(Defaults())
        try context.save()
        let stored = try #require(try Defaults.findAll(in: stack.newContext()).first)
        #expect(stored.email == "ann@example.com")
        #expect(stored.age == 31)
        #expect(stored.nickname == nil)
        #expect(stored.shade == .dark)
        #expect(stored.size == Size(width: 3, height: 4))
    }

    @Test @MainActor func createUsesTheInitialValues() throws {
        let stack = try RecordStack(inMemoryWith: [Defaults.self])
        defer { try? stack.close() }
        let object = Defaults.create(in: stack.newContext())
        #expect(object.email == "ann@example.com")
        #expect(object.shade == .dark)
    }
}
