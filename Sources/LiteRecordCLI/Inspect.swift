import ArgumentParser
import Foundation
import LiteRecord

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a store's entities, columns, row counts, model version, journal mode and size.")

    @Argument(help: "The store file (not with --replica), or with --tenant the tenants folder.")
    var path: String?

    @Option(name: .long, help: "The tenant whose store to show: PATH is then a RecordStacks folder.")
    var tenant: String?

    @Option(name: .long, help: "A Litestream replica to read in place instead of a file: file:///…, s3://…")
    var replica: String?

    @Option(name: .customLong("as-of"), help: "With --replica: the replica as it was at this RFC 3339 time (2026-11-26T10:00:00Z).")
    var asOf: String?

    @Option(name: .customLong("vfs-extension"), help: "With --replica: Litestream's VFS extension (default: $LITERECORD_LITESTREAM_VFS).")
    var vfsExtension: String?

    @Flag(name: .long, help: "Print the facts as one JSON object with sorted keys (schema: Docs/CLI.md).")
    var json = false

    func validate() throws {
        switch (path, replica) {
        case (nil, nil): throw ValidationError("name a store file, or a replica with --replica URL")
        case (_?, _?): throw ValidationError("name a store file or --replica, not both")
        default: break
        }
        if tenant != nil && replica != nil {
            throw ValidationError("--tenant names a store in a tenants folder, not in a replica")
        }
        if replica == nil && (asOf != nil || vfsExtension != nil) {
            throw ValidationError("--as-of and --vfs-extension go with --replica")
        }
        if let asOf, Self.date(asOf) == nil {
            throw ValidationError("--as-of \(asOf) is not an RFC 3339 time such as 2026-11-26T10:00:00Z")
        }
        if let replica, URL(string: replica)?.scheme == nil {
            throw ValidationError("--replica \(replica) is not a URL such as file:///srv/replicas/notes")
        }
    }

    static func date(_ text: String) -> Date? {
        (try? Date(text, strategy: .iso8601))
            ?? (try? Date(
                text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted)))
    }

    var name: String { replica ?? path ?? "" }

    func run() throws {
        let report: StoreInspection
        do {
            if let replica, let url = URL(string: replica) {
                report = try StoreInspection(
                    replicaAt: url, asOf: asOf.flatMap(Self.date), vfsExtension: vfsExtension.map { URL(fileURLWithPath: $0) })
            } else {
                report = try StoreInspection(storeAt: try TenantOption.storeURL(path ?? "", tenant: tenant))
            }
        } catch {
            throw Failure.report("inspect", error)
        }
        if json {
            do {
                print(try InspectDocument(report, asOf: asOf).json(), terminator: "")
            } catch {
                throw Failure.report("inspect", "\(name): the report cannot be written as JSON: \(error)", code: Failure.couldNotRun)
            }
            return
        }
        if let position = report.replicaPosition {
            print("replica:      \(report.url.absoluteString)")
            print("position:     \(position)\(asOf.map { " (as of \($0))" } ?? "")")
        } else {
            print("store:        \(report.url.path)")
        }
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
            if let history = report.history {
                let range = history.oldest.map { "tokens \($0) … \(history.newest?.description ?? "")" } ?? "none kept"
                let purged = history.purgedThrough.map { "; deleted through \($0)" } ?? ""
                print(
                    "history:      \(history.transactionCount) transaction\(history.transactionCount == 1 ? "" : "s") (\(range)\(purged); \(history.changeBytes) bytes of changes)")
            }
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
