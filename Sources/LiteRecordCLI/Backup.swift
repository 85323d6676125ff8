import ArgumentParser
import Foundation
import LiteRecord

struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy a store to a new file, consistently, while apps keep writing to it.",
        discussion: """
            DEST must not exist. The copy is what the store held at one instant \
            (SQLite's online backup API); it is a store of its own, in WAL mode.
            """)

    @Argument(help: "The store file, or with --tenant the tenants folder.")
    var store: String

    @Option(name: .long, help: "The tenant whose store to copy: STORE is then a RecordStacks folder.")
    var tenant: String?

    @Argument(help: "The new file to write; it must not exist.")
    var destination: String

    func run() throws {
        let target = URL(fileURLWithPath: destination)
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let source = try TenantOption.storeURL(store, tenant: tenant)
            try RecordStack.backup(storeAt: source, to: target)
        } catch {
            throw Failure.report("backup", error)
        }
        let elapsed = start.duration(to: clock.now)
        let bytes = ((try? FileManager.default.attributesOfItem(atPath: target.path))?[.size] as? NSNumber)?.int64Value ?? 0
        // The copy is read back for its row count: what it holds, not what the
        // store held a moment later.
        let rows = (try? StoreInspection(storeAt: target)).map { inspection in
            inspection.tables.reduce(0) { $0 + $1.rowCount }
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rowText = rows.map { "\($0) row\($0 == 1 ? "" : "s")" } ?? "rows not counted"
        print(
            "backed up \(tenant.map { "tenant \($0) of \(store)" } ?? store) to \(destination): \(rowText), \(bytes) bytes in \(String(format: "%.3f", seconds)) s")
    }
}

/// `--tenant NAME`: the path names a tenants folder (`RecordStacks`), and
/// the command works on that tenant's store.
enum TenantOption {
    static func storeURL(_ path: String, tenant: String?) throws -> URL {
        let url = URL(fileURLWithPath: path)
        guard let tenant else { return url }
        return try RecordStacks.storeURL(ofTenant: tenant, in: url)
    }
}
