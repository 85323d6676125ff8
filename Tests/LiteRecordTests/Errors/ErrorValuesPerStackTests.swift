import Foundation
import Testing
@testable import LiteRecord

/// Values in error messages are decided per stack: a stack that says so
/// shows them while another stack, and the process-wide switch (left off
/// here: flipping it would show values in tests running in parallel), keep
/// them hidden.
@Suite struct ErrorValuesPerStackTests {
    @Test func anImportErrorShowsTheValueOnlyOnTheStackThatAllowsIt() throws {
        let showing = try RecordStack(inMemoryWith: [ISample.self])
        showing.includesValuesInDescriptions = true
        let hiding = try RecordStack(inMemoryWith: [ISample.self])
        #expect(hiding.includesValuesInDescriptions == nil)

        let shown = try #require(throws: LiteRecordError.self) {
            try ISample.importObject(from: ["count": "secret-123"], in: showing.newContext())
        }
        #expect(shown.message.contains("secret-123"), "\(shown.message)")
        let hidden = try #require(throws: LiteRecordError.self) {
            try ISample.importObject(from: ["count": "secret-123"], in: hiding.newContext())
        }
        #expect(!hidden.message.contains("secret-123"), "\(hidden.message)")
        #expect(hidden.message.contains("a string is not an integer"), "\(hidden.message)")
        try showing.close()
        try hiding.close()
    }

    @Test func aConflictShowsValuesOnTheStackThatAllowsIt() throws {
        for allowed in [true, false] {
            let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
            if allowed { stack.includesValuesInDescriptions = true }
            let setup = stack.newContext()
            setup.insert(MacroPerson(name: "Ann", age: 31))
            try setup.save()
            let a = stack.newContext()
            let b = stack.newContext()
            let annA = try #require(try MacroPerson.findAll(in: a).first)
            try #require(try MacroPerson.findAll(in: b).first).age = 40
            try b.save()
            annA.age = 57
            let message = try #require(throws: LiteRecordError.self) { try a.save() }.message
            #expect(message.contains("age (here 57, in the store 40)") == allowed, "\(message)")
            try stack.close()
        }
    }

    /// A stack that says `false` hides values even if the process-wide
    /// switch were on: its own choice wins (checked without flipping the
    /// switch, through the store's resolution).
    @Test func aStacksOwnChoiceWinsOverTheProcessWideSwitch() throws {
        let stack = try RecordStack(inMemoryWith: [ISample.self])
        stack.includesValuesInDescriptions = false
        #expect(stack.store.showsValuesInErrors == false)
        stack.includesValuesInDescriptions = true
        #expect(stack.store.showsValuesInErrors)
        #expect(stack.store.scopingErrorValues { ErrorSettings.showsValues })
        #expect(ErrorSettings.showsValues == LiteRecordError.includesValuesInDescriptions)
        try stack.close()
    }
}
