import ArgumentParser

@main
struct LiteRecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "literecord",
        abstract: "Find, inspect, check and back up LiteRecord stores, or take the narrated tour.",
        subcommands: [Locate.self, Inspect.self, Check.self, BackupCommand.self, Demo.self]
    )
}
