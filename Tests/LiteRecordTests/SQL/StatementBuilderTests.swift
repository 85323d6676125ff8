import Testing

@testable import LiteRecord

/// The SQL each statement builder renders: the texts the save, delete and
/// fetch paths prepare (and cache by text), so a change here is a change of
/// every statement cache key and must be deliberate.
@Suite struct StatementBuilderTests {
    // MARK: Identifiers

    @Test func quotesEveryIdentifierOnce() {
        #expect(SQLIdentifier("Person").quoted == #""Person""#)
        #expect(SQLIdentifier.rowID.quoted == #""Z_PK""#)
        #expect(SQLIdentifier.version.quoted == #""Z_OPT""#)
        #expect("\(SQLIdentifier("name"))" == #""name""#)
    }

    @Test func doublesQuotesInsideNames() {
        #expect(SQLIdentifier(#"say "hi""#).quoted == #""say ""hi""""#)
        #expect(SQLIdentifier(#"""#).quoted == #""""""#)
        #expect(SQLIdentifier.quote(#"a"b"#) == #""a""b""#)
    }

    @Test func keywordsSpacesAndOddCharactersStayNames() {
        #expect(SQLIdentifier("select").quoted == #""select""#)
        #expect(SQLIdentifier("order by").quoted == #""order by""#)
        #expect(SQLIdentifier("a.b").quoted == #""a.b""#)
        #expect(SQLIdentifier("it's").quoted == #""it's""#)
        #expect(SQLIdentifier("").quoted == #""""#)
        #expect(SQLIdentifier("café").quoted == #""café""#)
    }

    @Test func schemaQualifiedAndBareNames() {
        #expect(SQLIdentifier("literecord_tombstones", inSchema: "temp").quoted == #"temp."literecord_tombstones""#)
        #expect(SQLIdentifier(bare: "token").quoted == "token")
        #expect(SQLIdentifier("name").qualified(by: "t1") == #"t1."name""#)
    }

    // MARK: Conditions

    @Test func conditionShapes() {
        #expect(WhereClause.rowID.sql == #""Z_PK" = ?"#)
        #expect(WhereClause.rowIDAndVersion.sql == #""Z_PK" = ? AND "Z_OPT" = ?"#)
        #expect(WhereClause.equals(SQLIdentifier("group")).sql == #""group" = ?"#)
        #expect(WhereClause.isNotNull(SQLIdentifier("owner")).sql == #""owner" IS NOT NULL"#)
        #expect(WhereClause.column(SQLIdentifier("a"), in: "?, ?").sql == #""a" IN (?, ?)"#)
        #expect(WhereClause.column(SQLIdentifier("a"), notIn: "?").sql == #""a" NOT IN (?)"#)
        #expect(WhereClause.column(inJSONArray: .rowID).sql == #""Z_PK" IN (SELECT value FROM json_each(?))"#)
        #expect(WhereClause(sql: "x > 1").parenthesized.sql == "(x > 1)")
        #expect(WhereClause.all([]) == nil)
        #expect(WhereClause.all([.rowID, .equals(.version)])?.sql == #""Z_PK" = ? AND "Z_OPT" = ?"#)
    }

    // MARK: Statements

    @Test func insert() {
        let table = SQLIdentifier("Person")
        #expect(
            InsertStatement(into: table, columns: [SQLIdentifier("name"), .rowID]).sql
                == #"INSERT INTO "Person" ("name", "Z_PK") VALUES (?, ?)"#)
        #expect(InsertStatement(into: table, columns: []).sql == #"INSERT INTO "Person" DEFAULT VALUES"#)
        #expect(
            InsertStatement(.ignore, into: SQLIdentifier("links"), columns: [SQLIdentifier("a"), SQLIdentifier("b")]).sql
                == #"INSERT OR IGNORE INTO "links" ("a", "b") VALUES (?, ?)"#)
        #expect(
            InsertStatement(.replace, into: table, columns: [SQLIdentifier("x")]).sql == #"INSERT OR REPLACE INTO "Person" ("x") VALUES (?)"#)
    }

    @Test func insertSelectAndUpsert() {
        let (entity, high) = (SQLIdentifier(bare: "entity"), SQLIdentifier(bare: "high"))
        let select = SelectStatement(["?", "high"], from: "marks", where: .equals(entity))
        let insert = InsertStatement(into: SQLIdentifier("marks"), columns: [entity, high], select: select.sql)
            .onConflict(entity, doUpdate: [.expression(high, "max(high, excluded.high)")])
        #expect(
            insert.sql
                == #"INSERT INTO "marks" (entity, high) SELECT ?, high FROM marks WHERE entity = ? ON CONFLICT(entity) DO UPDATE SET high = max(high, excluded.high)"#
        )
    }

    @Test func update() {
        let table = SQLIdentifier("Person")
        #expect(
            UpdateStatement(table, set: [.parameter(SQLIdentifier("name")), .nextVersion], where: .rowIDAndVersion).sql
                == #"UPDATE "Person" SET "name" = ?, "Z_OPT" = "Z_OPT" + 1 WHERE "Z_PK" = ? AND "Z_OPT" = ?"#)
        let owner = SQLIdentifier("owner")
        #expect(
            UpdateStatement(table, set: [.null(owner), .nextVersion], where: .column(inJSONArray: owner), returning: [.rowID]).sql
                == #"UPDATE "Person" SET "owner" = NULL, "Z_OPT" = "Z_OPT" + 1 WHERE "owner" IN (SELECT value FROM json_each(?)) RETURNING "Z_PK""#
        )
        #expect(UpdateStatement(table, set: [.parameter(owner)]).sql == #"UPDATE "Person" SET "owner" = ?"#)
    }

    @Test func delete() {
        let table = SQLIdentifier("Person")
        #expect(DeleteStatement(from: table).sql == #"DELETE FROM "Person""#)
        #expect(DeleteStatement(from: table, where: .rowIDAndVersion).sql == #"DELETE FROM "Person" WHERE "Z_PK" = ? AND "Z_OPT" = ?"#)
        #expect(
            DeleteStatement(from: table, where: WhereClause(sql: "x = 1"), returning: [.rowID]).sql
                == #"DELETE FROM "Person" WHERE x = 1 RETURNING "Z_PK""#)
    }

    @Test func select() {
        let table = SQLIdentifier("Person")
        #expect(SelectStatement([.rowID, .version], from: table).sql == #"SELECT "Z_PK", "Z_OPT" FROM "Person""#)
        #expect(
            SelectStatement(["1"], from: table.quoted, where: .rowID, orderBy: #""Z_PK""#, limit: "1 OFFSET 2").sql
                == #"SELECT 1 FROM "Person" WHERE "Z_PK" = ? ORDER BY "Z_PK" LIMIT 1 OFFSET 2"#)
        #expect(
            SelectStatement(select: #"SELECT "Z_PK" FROM "Person""#, where: .rowID).sql == #"SELECT "Z_PK" FROM "Person" WHERE "Z_PK" = ?"#)
    }

    // MARK: An entity's statements, as they were written by hand before

    @Test func entityStatementsKeepTheirText() {
        let entity = EntityDescription(type: StatementBuilderNote.self)
        // Each attribute aliased to its own name (SortedSelectAliasTests says why).
        #expect(entity.selectSQL == #"SELECT "Z_PK", "title" AS "title", "order" AS "order", "Z_OPT" FROM "StatementBuilderNote""#)
        #expect(entity.insertSQL == #"INSERT INTO "StatementBuilderNote" ("title", "order", "Z_PK") VALUES (?, ?, ?)"#)
        #expect(entity.insertPickingIDSQL == #"INSERT INTO "StatementBuilderNote" ("title", "order") VALUES (?, ?)"#)
        #expect(entity.deleteSQL == #"DELETE FROM "StatementBuilderNote" WHERE "Z_PK" = ? AND "Z_OPT" = ?"#)
        #expect(entity.updateSQL([1]) == #"UPDATE "StatementBuilderNote" SET "order" = ? WHERE "Z_PK" = ?"#)
        #expect(
            entity.versionedUpdateSQL([0, 1])
                == #"UPDATE "StatementBuilderNote" SET "title" = ?, "order" = ?, "Z_OPT" = "Z_OPT" + 1 WHERE "Z_PK" = ? AND "Z_OPT" = ?"#)
        #expect(
            entity.batchDeleteSQL(rowIDs: 3)
                == #"DELETE FROM "StatementBuilderNote" WHERE "Z_OPT" = ? AND "Z_PK" IN (?, ?, ?)"#)
        #expect(
            entity.qualifiedSelectList
                == #""StatementBuilderNote"."Z_PK", "StatementBuilderNote"."title", "StatementBuilderNote"."order", "StatementBuilderNote"."Z_OPT""#
        )
    }
}

@Entity final class StatementBuilderNote {
    var title = ""
    var order = 0
}
