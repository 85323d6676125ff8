import Foundation
import Testing
@testable import LiteRecord

/// A SQLite failure carries its result codes by name as well as by number.
@Suite struct SQLiteResultCodeTests {
    @Test func aUniqueViolationIsNamed() throws {
        let stack = try RecordStack(inMemoryWith: [ISample.self])
        defer { try? stack.close() }
        let error = try #require(throws: LiteRecordError.self) {
            try stack.store.withConnection("the probe") { connection in
                try connection.execute("CREATE TABLE probe (key TEXT UNIQUE)")
                try connection.execute("INSERT INTO probe VALUES ('a')")
                try connection.execute("INSERT INTO probe VALUES ('a')")
            }
        }
        #expect(error.kind == .constraintViolation)
        #expect(error.sqliteCode == .constraint)
        #expect(error.extendedSQLiteCode == .constraintUnique)
        #expect(error.extendedSQLiteCode?.primary == .constraint)
        // The Int32 accessors stay, and agree.
        #expect(error.resultCode == SQLiteResultCode.constraint.rawValue)
        #expect(error.extendedResultCode == 2067)
        #expect(error.description.contains("SQLite 2067 SQLITE_CONSTRAINT_UNIQUE:"), "\(error.description)")
    }

    @Test func namesAndDescriptions() {
        #expect(SQLiteResultCode.busy.name == "SQLITE_BUSY")
        #expect(SQLiteResultCode.busySnapshot.name == "SQLITE_BUSY_SNAPSHOT")
        #expect(SQLiteResultCode.busySnapshot.primary == .busy)
        #expect(SQLiteResultCode.busySnapshot.isExtended && !SQLiteResultCode.busy.isExtended)
        #expect(SQLiteResultCode(rawValue: 2067).description == "SQLITE_CONSTRAINT_UNIQUE (2067)")
        // A code this version does not name: its primary code's name and its number.
        #expect(SQLiteResultCode(rawValue: 10 | (200 << 8)).name == "SQLITE_IOERR (extended \(10 | (200 << 8)))")
    }

    @Test func anErrorWithoutSQLiteHasNoCode() {
        let error = LiteRecordError(.notSetUp, "no stack")
        #expect(error.sqliteCode == nil && error.extendedSQLiteCode == nil)
    }
}
