import Foundation
import Testing
import LiteRecord

@Entity(name: "STFItem")
final class STFItem {
    @Attribute(.unique) var code = ""
    var left = ""
    var right = ""
    init() {}
}

/// Docs/Internals/Invariants.md, "`.storeTrumps` keeps this context's other changes": "the store's newer values win, this
/// context's other edits are kept". Model seeds 800799 and 805119 found
/// that a record `findFirstOrCreate` created in a `.storeTrumps` context was
/// kept without the values it was written with (a save's insert keeps
/// them), so a later conflict took every stored value that differed from
/// the object's for a change made in the store, and an edit made only here
/// was not saved.
@Suite struct StoreTrumpsFindOrCreateTests {
    @Test func anEditOfACreatedRecordChangedOnlyHereIsWritten() throws {
        let stack = try RecordStack(inMemoryWith: [STFItem.self])
        let context = stack.newContext()
        context.mergePolicy = .storeTrumps
        let item = try STFItem.findFirstOrCreate(byAttribute: "code", withValue: "k", in: context)
        let other = stack.newContext()
        try #require(try STFItem.findAll(in: other).first).left = "elsewhere"
        try other.save()

        item.right = "here"
        try context.save()

        let reader = stack.newContext()
        let stored = try #require(try STFItem.findAll(in: reader).first)
        #expect(stored.left == "elsewhere", "the store's change is kept")
        #expect(stored.right == "here", "the edit made only here is written")
        #expect(item.left == "elsewhere")
        #expect(item.right == "here")
    }
}
