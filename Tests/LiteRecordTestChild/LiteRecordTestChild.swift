import ArgumentParser
import Foundation
import LiteRecord

/// The child processes of LiteRecord's process tests: each subcommand does
/// one side of a test whose other side, the parent, starts this executable,
/// waits for it or kills it, and checks the store it leaves. An executable
/// of its own rather than the test binary run with a filter: a child entry
/// point written as a test passes, asserting nothing, whenever the test
/// runner runs it without the child's arguments.
///
/// It fails (a non-zero exit status) when its arguments are missing or the
/// work throws, so a parent that checks the status sees a child that did
/// not do its part.
@main
struct LiteRecordTestChild: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "LiteRecordTestChild",
        abstract: "The child side of LiteRecord's process tests (Tests/LiteRecordTests).",
        subcommands: [
            MigrateLargeStore.self, OpenWithNewStep.self, StressWrite.self, EditNote.self, CrashWriter.self,
            Lifecycle.self, SearchWriter.self, WALGrowth.self,
        ])
}

/// `MigrationCrashTests`' child: migrates the store to `Migrated.Person`,
/// where the parent kills it with SIGKILL at a moment it chooses.
struct MigrateLargeStore: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate-large-store", abstract: "Migrate a store of Base.Person to Migrated.Person.")

    @Argument(help: "The store file.") var store: String
    @Option(
        help: """
            Pause inside the migration transaction, after the rebuild: a custom step creates this file, \
            then sleeps for a minute, waiting to be killed.
            """)
    var pauseMarker: String?
    @Option(help: "How long the pause lasts, in seconds (default 60).") var pauseSeconds: Double = 60

    func run() throws {
        // Always a plan with a step, so the migration takes (and keeps) a copy
        // first, which the parent kills around.
        let migration = MigrationMode.plan(
            MigrationPlan().step("pause") { _ in
                guard let pauseMarker else { return }
                _ = FileManager.default.createFile(atPath: pauseMarker, contents: Data())
                Thread.sleep(forTimeInterval: pauseSeconds)
            })
        try RecordStack(storeAt: URL(fileURLWithPath: store), entities: [Migrated.Person.self], migration: migration)
            .close()
    }
}

/// `MigrationPlanTests`' child: announces that it is ready, waits for
/// the go file, then opens the store with a plan whose step is new, at the
/// same moment as another child.
struct OpenWithNewStep: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open-with-new-step", abstract: "Open a store of Base.Person with the step age-up.")

    @Argument(help: "The store file.") var store: String
    @Option(help: "Create <go>.ready-<pid>, then wait (at most a minute) for this file before opening.") var go: String

    /// The tests' `Race.plan`: one more year for every person, so that
    /// running it twice shows.
    static let plan = MigrationPlan().step("age-up") { db in try db.execute("UPDATE Person SET age = age + 1") }

    func run() throws {
        let pid = ProcessInfo.processInfo.processIdentifier
        _ = FileManager.default.createFile(atPath: go + ".ready-\(pid)", contents: Data())
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: go) && Date() < deadline { Thread.sleep(forTimeInterval: 0.0001) }
        try RecordStack(storeAt: URL(fileURLWithPath: store), entities: [Base.Person.self], migration: .plan(Self.plan))
            .close()
    }
}
