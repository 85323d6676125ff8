import Foundation
import Testing
@testable import LiteRecord

/// The identity map's open-addressing table, checked against `Dictionary`.
@Suite struct IdentityMapTests {
    private func note(_ label: Int) -> HandWrittenNote { HandWrittenNote(text: "\(label)") }

    private func label(_ object: (any Entity)?) -> String? { (object as? HandWrittenNote)?.text }
    private func label(_ object: AnyObject?) -> String? { (object as? HandWrittenNote)?.text }

    @Test func findsWhatWasInsertedAndNothingElse() {
        let table = ObjectTable(of: HandWrittenNote.self)
        for rowID in Int64(1)...100 { table.insert(note(Int(rowID)), rowID: rowID) }
        #expect(table.count == 100)
        for rowID in Int64(1)...100 { #expect(label(table[rowID]) == "\(rowID)") }
        #expect(table[0] == nil)
        #expect(table[101] == nil)
        #expect(table[-1] == nil)
    }

    @Test func insertingAnExistingRowIDReplacesTheObject() {
        let table = ObjectTable(of: HandWrittenNote.self)
        table.insert(note(1), rowID: 7)
        table.insert(note(2), rowID: 7)
        #expect(table.count == 1)
        #expect(label(table[7]) == "2")
    }

    @Test func extremeAndNegativeRowIDs() {
        let table = ObjectTable(of: HandWrittenNote.self)
        let rowIDs: [Int64] = [.min, .max, -1, 0, 1, 1 << 32, -(1 << 40)]
        for (index, rowID) in rowIDs.enumerated() { table.insert(note(index), rowID: rowID) }
        for (index, rowID) in rowIDs.enumerated() { #expect(label(table[rowID]) == "\(index)") }
        for rowID in rowIDs { #expect(table.remove(rowID) != nil) }
        #expect(table.count == 0)
        #expect(table.objects.isEmpty)
    }

    @Test func visitingEveryObjectSeesTheListInItsOrder() {
        let map = IdentityMap()
        let table = map.table(for: HandWrittenNote.self)
        for rowID in [Int64.min, -5, 0, 3, 40, 1 << 33] { table.insert(note(Int(truncatingIfNeeded: rowID)), rowID: rowID) }
        _ = table.remove(3)
        var visited: [String?] = []
        map.forEachObject { visited.append(label($0)) }
        #expect(visited == map.objects.map { label($0) })
        #expect(visited.count == 5)
    }

    /// Random inserts, replacements and removals over a small key range, so
    /// probe runs collide, wrap around the end of the table and are shifted back
    /// by removals; after every step the table agrees with a dictionary.
    @Test(arguments: [1, 2, 3, 42] as [UInt64])
    func agreesWithADictionaryUnderRandomOperations(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let table = ObjectTable(of: HandWrittenNote.self)
        var reference: [Int64: String] = [:]
        for step in 0..<20_000 {
            // Keys spread over a range a few times the table's size, some negative.
            let rowID = Int64.random(in: -300...900, using: &random)
            if Int.random(in: 0..<3, using: &random) == 0 {
                let removed = table.remove(rowID)
                #expect(label(removed) == reference.removeValue(forKey: rowID))
            } else {
                table.insert(note(step), rowID: rowID)
                reference[rowID] = "\(step)"
            }
            if step % 997 == 0 {
                #expect(table.count == reference.count)
                for (key, value) in reference { #expect(label(table[key]) == value) }
            }
        }
        #expect(table.count == reference.count)
        #expect(Set(table.objects.compactMap(label)) == Set(reference.values))
        for rowID in Int64(-300)...900 { #expect(label(table[rowID]) == reference[rowID]) }
    }

    @Test func growsFromEmptyToManyAndShrinksBackToEmpty() {
        let table = ObjectTable(of: HandWrittenNote.self)
        let count = 50_000
        for rowID in 1...count { table.insert(note(rowID), rowID: Int64(rowID)) }
        #expect(table.count == count)
        for rowID in stride(from: 1, through: count, by: 2) { table.remove(Int64(rowID)) }
        #expect(table.count == count / 2)
        for rowID in 1...count {
            #expect((table[Int64(rowID)] != nil) == rowID.isMultiple(of: 2))
        }
        for rowID in stride(from: 2, through: count, by: 2) { table.remove(Int64(rowID)) }
        #expect(table.count == 0)
    }

    @Test func releasesItsObjects() {
        weak var held: HandWrittenNote?
        do {
            let table = ObjectTable(of: HandWrittenNote.self)
            let object = note(1)
            held = object
            table.insert(object, rowID: 1)
            table.insert(note(2), rowID: 2)
            #expect(held != nil)
            table.remove(1)
        }
        #expect(held == nil)
        do {
            let table = ObjectTable(of: HandWrittenNote.self)
            let object = note(3)
            held = object
            table.insert(object, rowID: 3)
        }
        #expect(held == nil, "a table that goes away releases what it still holds")
    }

    @Test func keepsOneTablePerEntity() {
        let map = IdentityMap()
        let person = HandWrittenPerson(name: "Ann", age: 31)
        map.table(for: HandWrittenPerson.self).insert(person, rowID: 1)
        map.table(for: HandWrittenNote.self).insert(note(1), rowID: 1)
        #expect(map.object(HandWrittenPerson.self, rowID: 1) === person)
        #expect(label(map.object(HandWrittenNote.self, rowID: 1)) == "1")
        #expect(map.object(HandWrittenPersonV2.self, rowID: 1) == nil)
        #expect(map.objects.count == 2)
        map.removeAll()
        #expect(map.objects.isEmpty)
        #expect(map.object(HandWrittenPerson.self, rowID: 1) == nil)
    }
}
