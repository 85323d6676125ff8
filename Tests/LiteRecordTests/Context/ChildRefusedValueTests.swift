import Foundation
import Testing
import LiteRecord

/// A child reads a record as the nearest ancestor holding it has it,
/// unsaved values included — also a value a save refuses (`-0.0`, NaN, a NaN
/// `Date`): the child shows it exactly, and only saving it is refused, at
/// the push as at the root's save (model seed 123164: the child's read threw
/// "score is NULL in the store").
@Suite struct ChildRefusedValueTests {
    let folder: TemporaryDirectory
    let stack: RecordStack
    let root: RecordContext
    let value: StoredValue

    init() throws {
        folder = try TemporaryDirectory()
        stack = try RecordStack(storeAt: folder.file("child-refused.sqlite"), entities: [StoredValue.self, StoredValuePartner.self])
        root = stack.newContext()
        value = StoredValue()
        value.name = "probe"
        value.score = 1.5
        root.insert(value)
        try root.save()
        value.score = -0.0
        value.ratio = .nan
        value.date = Date(timeIntervalSinceReferenceDate: .nan)
    }

    private func expectExact(_ copy: StoredValue?) {
        #expect(copy?.score == 0 && copy?.score.sign == .minus, "the parent's -0.0, sign kept")
        #expect(copy?.ratio.isNaN == true)
        #expect(copy?.date.timeIntervalSinceReferenceDate.isNaN == true)
    }

    @Test func everyQueryInAChildShowsTheParentsRefusedValuesExactly() throws {
        let child = root.makeChildContext()
        expectExact(try StoredValue.findFirst(matching: #Predicate { $0.name == "probe" }, in: child))
        expectExact(try StoredValue.findAll(in: child).first)
        var enumerated: StoredValue?
        try StoredValue.enumerate(matching: #Predicate { $0.name != "~" }, batchSize: 1, in: child) { enumerated = $0 }
        expectExact(enumerated)
        let grandchild = child.makeChildContext()
        expectExact(try StoredValue.findFirst(matching: #Predicate { $0.name == "probe" }, in: grandchild))
    }

    @Test func theValuesAreRefusedWhenPushedOrSavedAndTheStoreStaysIntact() throws {
        let child = root.makeChildContext()
        let copy = try #require(try StoredValue.findFirst(matching: #Predicate { $0.name == "probe" }, in: child))
        copy.name = "edited in the child"
        expectError(.validationFailed) { try child.save() }
        expectError(.validationFailed) { try root.save() }
        let stored = try #require(try StoredValue.findFirst(matching: #Predicate { $0.name == "probe" }, in: stack.newContext()))
        #expect(stored.score == 1.5)
    }
}
