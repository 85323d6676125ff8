import Foundation
import Testing
@testable import LiteRecord

@Entity(name: "CLCrate")
final class CLCrate {
    var name = ""
    @Relationship(inverse: \CLBottle.crate, minimumCount: 1) var bottles: [CLBottle] = []
    @Relationship(inverse: \CLLabel.crate, maximumCount: 2) var labels: [CLLabel] = []
    init() {}
}

@Entity(name: "CLBottle")
final class CLBottle {
    var name = ""
    @Relationship var crate: CLCrate?
    @Relationship var shelf: CLShelf?
    init() {}
}

@Entity(name: "CLShelf")
final class CLShelf {
    var name = ""
    @Relationship(deleteRule: .cascade, inverse: \CLBottle.shelf) var bottles: [CLBottle] = []
    init() {}
}

@Entity(name: "CLLabel")
final class CLLabel {
    var text = ""
    @Relationship var crate: CLCrate?
    init() {}
}

/// Docs/Relationships.md: the counts are checked "for every object whose
/// list changed", and a child's push counts a list as the push leaves it in
/// the parent. A list the child did not change is the parent's business:
/// model seed 234235 (length 80) found a push that changed one counted list
/// of an owner refused over another, which the parent's own unsaved change
/// had left below its minimum.
@Suite struct ChildPushCountedListTests {
    let stack: RecordStack
    let parent: RecordContext
    let crate: CLCrate

    init() throws {
        stack = try RecordStack(inMemoryWith: [CLCrate.self, CLBottle.self, CLLabel.self, CLShelf.self])
        parent = stack.newContext()
        crate = CLCrate()
        crate.name = "crate"
        parent.insert(crate)
        let bottle = Self.bottle("only", in: crate, inserting: parent)
        try parent.save()
        // The parent's own unsaved change: the crate's last bottle leaves.
        bottle.crate = nil
    }

    /// A new bottle named `name` in `crate`, inserted into `context`.
    private static func bottle(_ name: String, in crate: CLCrate, inserting context: RecordContext) -> CLBottle {
        let bottle = CLBottle()
        bottle.name = name
        context.insert(bottle)
        bottle.crate = crate
        return bottle
    }

    private func labelled(_ count: Int, in child: RecordContext) throws {
        let id = try #require(crate.recordID)
        let crateHere = try #require(try child.object(with: id, as: CLCrate.self))
        for index in 0..<count {
            let label = CLLabel()
            label.text = "label \(index)"
            child.insert(label)
            label.crate = crateHere
        }
    }

    @Test func aPushCountsOnlyTheListsItChanged() throws {
        let child = parent.makeChildContext()
        try labelled(1, in: child)
        try child.save()
        #expect(crate.labels.count == 1, "the push went through")

        let error = try #require(throws: LiteRecordError.self) { try parent.save() }
        #expect(error.kind == .validationFailed && error.message.contains("CLCrate.bottles"), "the parent's own change meets the rule at its save")
    }

    @Test func aListThePushChangesIsStillCounted() throws {
        let child = parent.makeChildContext()
        try labelled(3, in: child)
        let error = try #require(throws: LiteRecordError.self) { try child.save() }
        #expect(error.kind == .validationFailed && error.message.contains("CLCrate.labels"))
        #expect(crate.labels.isEmpty, "nothing was pushed")
    }

    /// The push deletes a shelf; in the parent its `.cascade` takes a bottle
    /// the parent inserted and the child cannot see, the crate's only one
    /// now: the push leaves the crate below its minimum, so it is refused
    /// (model seed 231799 at length 80, there through a one-to-one), from a
    /// child and from a grandchild alike.
    @Test(arguments: [1, 2]) func aPushWhoseDeletionTakesAnUnseenInsertCountsTheListItLeaves(depth: Int) throws {
        let shelf = CLShelf()
        shelf.name = "shelf"
        parent.insert(shelf)
        let replacement = Self.bottle("replacement", in: crate, inserting: parent)
        try parent.save()
        let unseen = Self.bottle("unseen", in: crate, inserting: parent)
        unseen.shelf = shelf
        replacement.crate = nil
        #expect(crate.bottles.map(\.name) == ["unseen"])

        var pushing = parent.makeChildContext()
        var chain = [pushing]
        for _ in 1..<depth {
            pushing = pushing.makeChildContext()
            chain.append(pushing)
        }
        let shelfID = try #require(shelf.recordID)
        pushing.delete(try #require(try pushing.object(with: shelfID, as: CLShelf.self)))
        let error = try #require(throws: LiteRecordError.self) { try pushing.save() }
        #expect(error.kind == .validationFailed && error.message.contains("CLCrate.bottles"))
        #expect(shelf.statePhase == .managed && unseen.statePhase == .inserted, "nothing was pushed")
        _ = chain
    }
}
