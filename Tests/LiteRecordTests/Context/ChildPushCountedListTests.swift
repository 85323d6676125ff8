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
        stack = try RecordStack(inMemoryWith: [CLCrate.self, CLBottle.self, CLLabel.self])
        parent = stack.newContext()
        crate = CLCrate()
        crate.name = "crate"
        parent.insert(crate)
        let bottle = CLBottle()
        bottle.name = "only"
        parent.insert(bottle)
        bottle.crate = crate
        try parent.save()
        // The parent's own unsaved change: the crate's last bottle leaves.
        bottle.crate = nil
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
}
