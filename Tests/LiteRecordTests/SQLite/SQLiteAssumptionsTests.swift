import CSQLite
import Foundation
import Testing
@testable import LiteRecord

/// Pins down the behaviour of the linked SQLite that the library relies on.
@Suite struct SQLiteAssumptionsTests {
    @Test func versionHasReturningAndDropColumn() throws {
        let parts = Connection.sqliteVersion.split(separator: ".").compactMap { Int($0) }
        #expect(parts.count >= 2)
        // RETURNING (3.35), DROP COLUMN (3.35), RENAME COLUMN (3.25).
        #expect(parts[0] > 3 || (parts[0] == 3 && parts[1] >= 35))
    }

    @Test func boundNaNBecomesNull() throws {
        // Why Double's sqlValue() refuses NaN: SQLite stores a bound NaN as NULL.
        let db = try Connection(path: nil)
        try db.execute("CREATE TABLE t (x REAL)")
        let insert = try db.cachedStatement("INSERT INTO t (x) VALUES (?)")
        try insert.bind(.real(.nan), at: 1)
        try insert.run()
        #expect(try db.scalar("SELECT x FROM t") == .null)
    }

    @Test func integerPrimaryKeyIsTheRowid() throws {
        let db = try Connection(path: nil)
        try db.execute("CREATE TABLE t (Z_PK INTEGER PRIMARY KEY, v TEXT)")
        try db.execute("INSERT INTO t (v) VALUES ('a')", [])
        #expect(try db.scalar("SELECT rowid = Z_PK FROM t") == .integer(1))
    }

    @Test func emptyBlobIsNotNull() throws {
        let db = try Connection(path: nil)
        try db.execute("CREATE TABLE t (b BLOB NOT NULL)")
        try db.execute("INSERT INTO t (b) VALUES (?)", [.blob(Data())])
        #expect(try db.scalar("SELECT typeof(b) FROM t") == .text("blob"))
        #expect(try db.scalar("SELECT b FROM t") == .blob(Data()))
    }

    @Test func textKeepsNulBytes() throws {
        let db = try Connection(path: nil)
        try db.execute("CREATE TABLE t (s TEXT NOT NULL)")
        let text = "a\u{0}b'; DROP TABLE t; --"
        try db.execute("INSERT INTO t (s) VALUES (?)", [.text(text)])
        #expect(try db.scalar("SELECT s FROM t") == .text(text))
        #expect(try db.scalar("SELECT length(CAST(s AS BLOB)) FROM t") == .integer(Int64(text.utf8.count)))
    }
}

/// `SQLITE_CONSTRAINT_UNIQUE`, a C macro Swift does not import.
let sqliteConstraintUnique: Int32 = 2067

@Suite struct ConnectionTests {
    @Test func errorsCarryCodesMessageAndSQL() throws {
        let db = try Connection(path: nil)
        do {
            try db.execute("SELECT * FROM missing_table", [])
            Issue.record("expected an error")
        } catch let error as SQLiteError {
            #expect(error.code == SQLITE_ERROR)
            #expect(error.message.contains("missing_table"))
            #expect(error.sql == "SELECT * FROM missing_table")
        }
    }

    @Test func constraintErrorsHaveExtendedCodes() throws {
        let db = try Connection(path: nil)
        try db.execute("CREATE TABLE t (x INTEGER UNIQUE)")
        try db.execute("INSERT INTO t (x) VALUES (?)", [.integer(1)])
        do {
            try db.execute("INSERT INTO t (x) VALUES (?)", [.integer(1)])
            Issue.record("expected an error")
        } catch let error as SQLiteError {
            #expect(error.isConstraintViolation)
            #expect(error.extendedCode == sqliteConstraintUnique)
            let wrapped = LiteRecordError.wrap(error, "saving")
            #expect(wrapped.kind == .constraintViolation)
            #expect(wrapped.extendedResultCode == sqliteConstraintUnique)
            #expect(wrapped.sql == "INSERT INTO t (x) VALUES (?)")
            // Bound values are kept out of descriptions unless enabled.
            #expect(wrapped.arguments == nil)
        }
    }

    @Test func statementsAreCachedAndReset() throws {
        let db = try Connection(path: nil)
        let first = try db.cachedStatement("SELECT ?")
        try first.bind(.integer(7), at: 1)
        let second = try db.cachedStatement("SELECT ?")
        #expect(first === second)
        // Reset cleared the earlier binding.
        #expect(try second.step())
        #expect(second.value(at: 0) == .null)
    }

    @Test func wrongArgumentCountIsAnError() throws {
        let db = try Connection(path: nil)
        #expect(throws: SQLiteError.self) { try db.execute("SELECT ?, ?", [.integer(1)]) }
    }

    @Test func transactionRollsBackOnError() throws {
        let db = try Connection(path: nil)
        try db.execute("CREATE TABLE t (x INTEGER)")
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try db.transaction {
                try db.execute("INSERT INTO t (x) VALUES (1)", [])
                throw Boom()
            }
        }
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(0))
        #expect(!db.isInTransaction)
    }

    @Test func traceSeesEveryStatementWithoutValues() throws {
        let recorder = StatementRecorder()
        let db = try Connection(path: nil, trace: { sql, _ in recorder.append(sql) })
        try db.execute("CREATE TABLE t (s TEXT)")
        try db.execute("INSERT INTO t (s) VALUES (?)", [.text("secret")])
        #expect(recorder.statements == ["CREATE TABLE t (s TEXT)", "INSERT INTO t (s) VALUES (?)"])
    }

    @Test func closedConnectionThrowsInsteadOfCrashing() throws {
        let db = try Connection(path: nil)
        db.close()
        #expect(throws: SQLiteError.self) { try db.execute("SELECT 1") }
        #expect(throws: SQLiteError.self) { _ = try db.cachedStatement("SELECT 1") }
    }
}

@Suite struct UUIDTextTests {
    @Test func formatsExactlyLikeFoundation() {
        for _ in 0..<1_000 {
            let uuid = UUID()
            #expect(UUIDText.format(uuid) == uuid.uuidString)
        }
    }

    /// Every byte value in every position, so that each digit and each
    /// neighbour of 9/A is spelled at every offset of the text.
    @Test func formatsEveryByteInEveryPositionLikeFoundation() {
        for value in 0...255 {
            let byte = UInt8(value)
            let same = UUID(uuid: (byte, byte, byte, byte, byte, byte, byte, byte, byte, byte, byte, byte, byte, byte, byte, byte))
            #expect(UUIDText.format(same) == same.uuidString)
            let (a, b, c, d) = (byte, byte &+ 1, byte &+ 7, byte &+ 128)
            let mixed = UUID(uuid: (a, b, c, d, d, c, b, a, b, d, a, c, c, a, d, b))
            #expect(UUIDText.format(mixed) == mixed.uuidString)
        }
    }

    @Test func parsesWhatFoundationParses() {
        for _ in 0..<1_000 {
            let uuid = UUID()
            let upper = Array(uuid.uuidString.utf8)
            let lower = Array(uuid.uuidString.lowercased().utf8)
            #expect(upper.withUnsafeBufferPointer(UUIDText.parse) == uuid)
            #expect(lower.withUnsafeBufferPointer(UUIDText.parse) == uuid)
        }
    }

    @Test func rejectsMalformedText() {
        for text in [
            "", "E621E1F8C36C495A93FC0C247A3E6E5F", "E621E1F8-C36C-495A-93FC-0C247A3E6E5G",
            "E621E1F8-C36C-495A-93FC_0C247A3E6E5F", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F0",
            // Neighbours of the digit ranges, a space, and a two-byte character.
            "E621E1F8-C36C-495A-93FC-0C247A3E6E5:", "E621E1F8-C36C-495A-93FC-0C247A3E6E5@",
            "E621E1F8-C36C-495A-93FC-0C247A3E6E5`", "E621E1F8-C36C-495A-93FC-0C247A3E6E5/",
            "E621E1F8-C36C-495A-93FC-0C247A3E6E5 ", "E621E1F8-C36C-495A-93FC-0C247A3E6Eé",
            "E621E1F8-C36C-495A-93FC-0C247A3E6E5g", "E621E1F8+C36C-495A-93FC-0C247A3E6E5F",
        ] {
            #expect(Array(text.utf8).withUnsafeBufferPointer(UUIDText.parse) == nil, "\(text)")
        }
    }

    /// Every byte value at every position of a valid text, against a parser
    /// that reads one character at a time: the word-at-a-time one must accept
    /// exactly the same texts and read them as the same UUID.
    @Test func agreesWithACharacterByCharacterParserOnEverySubstitution() {
        let samples = [
            "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "00000000-0000-0000-0000-000000000000",
            "ffffffff-ffff-ffff-ffff-ffffffffffff", "0123abcd-89AB-cdEF-4567-fedcba987654",
        ]
        for sample in samples {
            for position in 0..<36 {
                for byte in UInt8.min...UInt8.max {
                    var text = Array(sample.utf8)
                    text[position] = byte
                    let fast = text.withUnsafeBufferPointer(UUIDText.parse)
                    let reference = Self.referenceParse(text)
                    if fast != reference {
                        Issue.record("\(sample) with byte \(byte) at \(position): \(String(describing: fast)) vs \(String(describing: reference))")
                    }
                }
            }
        }
    }

    private static func referenceParse(_ text: [UInt8]) -> UUID? {
        guard text.count == 36 else { return nil }
        var bytes: [UInt8] = []
        var pending: UInt8?
        for (position, character) in text.enumerated() {
            if [8, 13, 18, 23].contains(position) {
                guard character == UInt8(ascii: "-") else { return nil }
                continue
            }
            let digit: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = character - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = character - UInt8(ascii: "A") + 10
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = character - UInt8(ascii: "a") + 10
            default: return nil
            }
            if let high = pending {
                bytes.append(high << 4 | digit)
                pending = nil
            } else {
                pending = digit
            }
        }
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
