import ArgumentParser
import Foundation
import LiteRecord

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a store's entities, columns, row counts, model version, journal mode and size.")

    @Argument(help: "The store file.")
    var path: String

    @Flag(name: .long, help: "Print the facts as one JSON object with sorted keys (schema: Docs/CLI.md).")
    var json = false

    func run() throws {
        let report: StoreInspection
        do {
            report = try StoreInspection(storeAt: URL(fileURLWithPath: path))
        } catch {
            throw Failure.report("inspect", error)
        }
        if json {
            do {
                print(try InspectDocument(report).json(), terminator: "")
            } catch {
                throw Failure.report("inspect", "\(path): the report cannot be written as JSON: \(error)", code: Failure.couldNotRun)
            }
            return
        }
        print("store:        \(report.url.path)")
        print("size:         \(report.sizeInBytes) bytes")
        print("journal mode: \(report.journalMode)")
        print("pages:        \(report.pageCount) × \(report.pageSize) bytes")
        print("SQLite:       \(report.sqliteVersion)")
        if let fingerprint = report.modelFingerprint {
            print("model:        \(fingerprint) (entities: \(report.entityNames.joined(separator: ", ")))")
            if report.schemaDifferences.isEmpty {
                print("tables:       match the model description")
            } else {
                for difference in report.schemaDifferences { print("differs:      \(difference)") }
            }
            if let created = report.createdAt { print("created:      \(created)") }
            if !report.migrationSteps.isEmpty { print("migrations:   \(report.migrationSteps.joined(separator: ", "))") }
            for copy in report.preMigrationCopies { print("copy:         \(copy.path) (before a migration)") }
        } else {
            print("model:        none (not a LiteRecord store)")
        }
        for table in report.tables {
            print("")
            print("\(table.name): \(table.rowCount) row\(table.rowCount == 1 ? "" : "s")")
            for column in table.columns {
                var flags: [String] = []
                if column.isPrimaryKey { flags.append("primary key") }
                if column.isNullable && !column.isPrimaryKey { flags.append("nullable") }
                let suffix = flags.isEmpty ? "" : " (\(flags.joined(separator: ", ")))"
                print("  \(column.name) \(column.type)\(suffix)")
            }
            for index in table.indexes { print("  index \(index)") }
            for search in report.searchIndexes where search.entity == table.name {
                print("  full-text index \(search.name) (\(search.columns.joined(separator: ", ")); \(search.triggers.count) trigger\(search.triggers.count == 1 ? "" : "s"))")
            }
        }
    }
}

extension Error {
    /// The message to show a person: a LiteRecordError's own message.
    var message: String {
        (self as? LiteRecordError)?.message ?? String(describing: self)
    }
}
