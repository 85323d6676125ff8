import Foundation
import Testing
@testable import LiteRecord

@Entity(name: "PushReading") final class PushReading {
    var label = ""
    var value: Double?
    var weight = 1.0
    init() {}
    init(label: String, value: Double? = nil, weight: Double = 1) {
        self.label = label
        self.value = value
        self.weight = weight
    }
}

@Entity(name: "PushBook") final class PushBook {
    var title = ""
    @Relationship(deleteRule: .cascade, inverse: \PushChapter.book) var chapters: [PushChapter] = []
    init() {}
    init(title: String) { self.title = title }
}

@Entity(name: "PushChapter") final class PushChapter {
    var title = ""
    @Relationship var book: PushBook?
    init() {}
    init(title: String) { self.title = title }
}

@Entity(name: "PushShelf") final class PushShelf {
    var name = ""
    @Relationship(deleteRule: .deny, inverse: \PushItem.shelf) var items: [PushItem] = []
    init() {}
    init(name: String) { self.name = name }
}

@Entity(name: "PushItem") final class PushItem {
    var name = ""
    @Relationship var shelf: PushShelf?
    init() {}
    init(name: String) { self.name = name }
}

@Entity(name: "PushCrate") final class PushCrate {
    var name = ""
    @Relationship(inverse: \PushBottle.crate, minimumCount: 1, maximumCount: 2) var bottles: [PushBottle] = []
    init() {}
    init(name: String) { self.name = name }
}

@Entity(name: "PushBottle") final class PushBottle {
    var name = ""
    @Relationship var crate: PushCrate?
    init() {}
    init(name: String) { self.name = name }
}

/// A child's save is checked like a root save (Docs/Internals/Invariants.md,
/// "A save is all or nothing": all or nothing,
/// values exact, every rule applied) before anything reaches the parent.
@Suite(.tags(.threads)) struct ChildPushTests {
    let stack: RecordStack
    let parent: RecordContext

    init() throws {
        stack = try RecordStack(inMemoryWith: [
            PushReading.self, PushBook.self, PushChapter.self, PushShelf.self, PushItem.self, PushCrate.self, PushBottle.self,
        ])
        parent = stack.newContext()
    }

    private func reading(_ label: String, in context: RecordContext) throws -> PushReading {
        try #require(try PushReading.findFirst(byAttribute: "label", withValue: label, in: context))
    }

    // MARK: One encoder

    @Test func aNaNIsRefusedAtThePushAsAtTheRootSave() throws {
        parent.insert(PushReading(label: "a", value: 1.5))
        try parent.save()

        let root = stack.newContext()
        try reading("a", in: root).value = .nan
        #expect(throws: LiteRecordError.self) { try root.save() }

        let child = parent.makeChildContext()
        try reading("a", in: child).value = .nan
        let error = try #require(throws: LiteRecordError.self) { try child.save() }
        #expect(error.kind == .validationFailed, "\(error)")
        #expect(error.message.contains("PushReading.value"), "\(error.message)")
        #expect(!parent.hasChanges)
        #expect(try reading("a", in: parent).value == 1.5)
        #expect(child.hasChanges)
        #expect(try reading("a", in: child).value?.isNaN == true)
        try parent.save()
        #expect(try reading("a", in: stack.newContext()).value == 1.5)
    }

    @Test func aNewObjectWithANaNIsRefusedAtThePush() throws {
        let child = parent.makeChildContext()
        child.insert(PushReading(label: "new", value: .nan))
        let error = try #require(throws: LiteRecordError.self) { try child.save() }
        #expect(error.kind == .validationFailed, "\(error)")
        #expect(!parent.hasChanges)
        #expect(child.hasChanges)
    }

    @Test func aFailureInTheMiddleOfAPushLeavesBothContextsAsTheyWere() throws {
        for index in 0..<5 { parent.insert(PushReading(label: "\(index)", weight: 1)) }
        try parent.save()
        let child = parent.makeChildContext()
        for index in 0..<5 { try reading("\(index)", in: child).weight = index == 3 ? .nan : Double(index + 10) }
        let error = try #require(throws: LiteRecordError.self) { try child.save() }
        #expect(error.kind == .validationFailed, "\(error)")
        #expect(!parent.hasChanges)
        for index in 0..<5 { #expect(try reading("\(index)", in: parent).weight == 1) }
        #expect(child.hasChanges)
        for index in [0, 1, 2, 4] { #expect(try reading("\(index)", in: child).weight == Double(index + 10)) }

        // Once the value is fixed, every edit goes through.
        try reading("3", in: child).weight = 13
        try child.save()
        try parent.save()
        let stored = try PushReading.findAll(in: stack.newContext()).sorted { $0.label < $1.label }.map(\.weight)
        #expect(stored == [10, 11, 12, 13, 14])
    }

    // MARK: Order of a push

    @Test func aChapterMovedBeforeItsOldBookIsDeletedSurvivesBothSaves() throws {
        let old = PushBook(title: "old")
        let new = PushBook(title: "new")
        let chapter = PushChapter(title: "moved")
        chapter.book = old
        for object in [old, new] as [any Entity] { parent.insert(object) }
        parent.insert(chapter)
        try parent.save()
        #expect(old.chapters.count == 1, "the parent has loaded the old book's chapters")

        let child = parent.makeChildContext()
        let childOld = try #require(old.inContext(child))
        let childNew = try #require(new.inContext(child))
        try #require(chapter.inContext(child)).book = childNew
        try childOld.delete(in: child)
        try child.save()
        try parent.save()

        let check = stack.newContext()
        let chapters = try PushChapter.findAll(in: check)
        #expect(chapters.map(\.title) == ["moved"])
        #expect(chapters.first?.book?.title == "new")
        #expect(try PushBook.findAll(in: check).map(\.title) == ["new"])
    }

    // MARK: Relationship rules

    @Test func aDeniedDeletionIsRefusedAtThePush() throws {
        let shelf = PushShelf(name: "kept")
        let item = PushItem(name: "on it")
        item.shelf = shelf
        parent.insert(shelf)
        parent.insert(item)
        try parent.save()

        let child = parent.makeChildContext()
        try #require(shelf.inContext(child)).delete(in: child)
        let error = try #require(throws: LiteRecordError.self) { try child.save() }
        #expect(error.kind == .validationFailed && error.message.contains(".deny"), "\(error)")
        #expect(!parent.hasChanges)
        #expect(child.hasChanges)
        #expect(shelf.recordState.phase == .managed)
    }

    @Test func countsAreCheckedAtThePush() throws {
        let crate = PushCrate(name: "crate")
        parent.insert(crate)
        for name in ["a", "b"] {
            let bottle = PushBottle(name: name)
            bottle.crate = crate
            parent.insert(bottle)
        }
        try parent.save()

        let tooMany = parent.makeChildContext()
        let childCrate = try #require(crate.inContext(tooMany))
        #expect(childCrate.bottles.count == 2)
        let third = PushBottle(name: "c")
        tooMany.insert(third)
        third.crate = childCrate
        let error = try #require(throws: LiteRecordError.self) { try tooMany.save() }
        #expect(error.kind == .validationFailed && error.message.contains("at most 2"), "\(error)")
        #expect(!parent.hasChanges)
        #expect(tooMany.hasChanges)
    }

    /// A crate saved in the parent with one bottle, `name`.
    private func savedCrate(holding name: String) throws -> (PushCrate, PushBottle) {
        let crate = PushCrate(name: "crate")
        let bottle = PushBottle(name: name)
        parent.insert(crate)
        parent.insert(bottle)
        bottle.crate = crate
        try parent.save()
        return (crate, bottle)
    }

    /// The model-based test, seeds 122942 and 132011: a push is checked against
    /// the list it leaves in the parent, whose unsaved inserts the child
    /// cannot see. The parent replaced the crate's only bottle with a new
    /// one: the child's list is empty, the parent's holds one.
    @Test func aPushCountsTheParentsUnsavedInsertsAgainstTheMinimum() throws {
        let (crate, old) = try savedCrate(holding: "old")
        let new = PushBottle(name: "new")
        parent.insert(new)
        new.crate = crate
        parent.delete(old)

        let child = parent.makeChildContext()
        let childCrate = try #require(crate.inContext(child))
        #expect(childCrate.bottles.isEmpty)
        childCrate.name = "renamed"
        try child.save()
        #expect(crate.name == "renamed")
        try parent.save()
        #expect(try PushBottle.findAll(in: stack.newContext()).map(\.name) == ["new"])
    }

    /// The same for the maximum: with the parent's unsaved bottle, the
    /// child's third would leave three in a list of at most two, which the
    /// push refuses rather than leaving the parent a save that must fail.
    @Test func aPushCountsTheParentsUnsavedInsertsAgainstTheMaximum() throws {
        let (crate, _) = try savedCrate(holding: "a")
        let second = PushBottle(name: "b")
        parent.insert(second)
        second.crate = crate

        let child = parent.makeChildContext()
        let childCrate = try #require(crate.inContext(child))
        let third = PushBottle(name: "c")
        child.insert(third)
        third.crate = childCrate
        let error = try #require(throws: LiteRecordError.self) { try child.save() }
        #expect(error.kind == .validationFailed && error.message.contains("holds 3 objects; at most 2"), "\(error)")
        #expect(child.hasChanges)
        #expect(crate.bottles.count == 2)
    }
}
