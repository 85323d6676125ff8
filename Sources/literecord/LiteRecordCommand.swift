import ArgumentParser

@main
struct LiteRecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "literecord",
        abstract: "Find, inspect and check LiteRecord stores, or take the narrated tour.",
        subcommands: [Locate.self, Inspect.self, Check.self, Demo.self, StressWrite.self, EditNote.self, CrashWriter.self, Lifecycle.self]
    )
}
