import Foundation
import Testing
import LiteRecord

/// Relationship shapes without an exact SQL translation are refused with
/// `.unsupportedPredicate` naming the part, by every entry point, and a
/// refused `deleteAll` deletes nothing.
@Suite struct RelationshipPredicateRefusalTests {
    let stack: RecordStack
    let context: RecordContext

    init() throws {
        stack = try RelationshipQuerySeed.stack()
        context = stack.newContext()
    }

    private func expectUnsupported(
        _ predicate: Predicate<QAuthor>, naming expected: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try QAuthor.count(in: context)
        let attempts: [(String, () throws -> Void)] = [
            ("findAll", { _ = try QAuthor.findAll(matching: predicate, in: context) }),
            ("count", { _ = try QAuthor.count(matching: predicate, in: context) }),
            ("exists", { _ = try QAuthor.exists(matching: predicate, in: context) }),
            ("deleteAll", { _ = try QAuthor.deleteAll(matching: predicate, in: context) }),
            ("aggregate", { _ = try QAuthor.aggregate(.sum, of: \.age, matching: predicate, in: context) }),
            ("enumerate", { try QAuthor.enumerate(matching: predicate, in: context) { _ in } }),
        ]
        for (name, attempt) in attempts {
            do {
                try attempt()
                Issue.record("\(name) accepted a predicate naming \(expected)", sourceLocation: sourceLocation)
            } catch let error as LiteRecordError {
                #expect(error.kind == .unsupportedPredicate, "\(name): \(error)", sourceLocation: sourceLocation)
                #expect(error.message.contains(expected), "\(name): \(error.message)", sourceLocation: sourceLocation)
            }
        }
        #expect(try QAuthor.count(in: context) == before, "nothing deleted", sourceLocation: sourceLocation)
    }

    @Test func otherPropertiesOfAToMany() throws {
        try expectUnsupported(#Predicate { $0.books.first?.title == "Dune" }, naming: "to-many relationship")
    }

    @Test func filteringAToMany() throws {
        try expectUnsupported(#Predicate { $0.books.filter { $0.pages > 10 }.count > 1 }, naming: "Filter")
    }

    /// SQL tests the related rows in an order of its own: a closure that can
    /// fail (checked arithmetic) could fail where Swift stopped earlier.
    @Test func aClosureThatCanFail() throws {
        try expectUnsupported(#Predicate { $0.books.contains { $0.pages * 1_000 > 3 } }, naming: "can fail")
    }

    /// A sort key path through a relationship must end at a stored attribute
    /// reached through to-ones: a to-many's count, a relationship itself or a
    /// force-unwrapped to-one are refused, naming the key path.
    @Test func sortDescriptorsThroughRelationshipsThatAreNotToOneAttributes() throws {
        let refused: [SortDescriptor<QBook>] = [
            SortDescriptor(\QBook.author?.books.count),
            SortDescriptor(\QBook.author!.name),
            SortDescriptor(\QBook.author?.name.count),
        ]
        for descriptor in refused {
            #expect {
                _ = try QBook.findAll(sortedBy: [SortDescriptor(\QBook.title), descriptor], in: context)
            } throws: { error in
                guard let error = error as? LiteRecordError else { return false }
                return error.kind == .unsupportedPredicate && error.message.contains("through to-one relationships")
            }
        }
    }

    /// An entity missing from the stack's model is the caller's mistake,
    /// whatever the predicate: `.invalidObject`, naming the fix.
    @Test func anEntityOutsideTheModel() throws {
        let attempts: [() throws -> Void] = [
            { _ = try QueryPerson.findAll(matching: #Predicate { $0.age > 1 }, in: context) },
            { _ = try QueryPerson.count(matching: #Predicate { $0.age > 1 }, in: context) },
            { _ = try QueryPerson.deleteAll(matching: #Predicate { $0.age > 1 }, in: context) },
        ]
        for attempt in attempts {
            #expect {
                try attempt()
            } throws: { error in
                guard let error = error as? LiteRecordError else { return false }
                return error.kind == .invalidObject && error.message.contains("add QueryPerson.self")
            }
        }
    }
}
