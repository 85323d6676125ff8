// swift-tools-version: 6.1
import PackageDescription

// Read replicas over Litestream's VFS (Docs/Deployment.md): how far a
// replica lags its primary, what a query costs on it against the primary
// (cold and warm page cache), and whether any read sees part of a commit
// while the primary writes and its `litestream` is killed and restarted.
//
//   make litestream                                   # litestream + litestream-vfs
//   swift build --product LiteRecordMacros            # at the repository root
//   cd Benchmarks/Replica
//   LITERECORD_MACRO_PLUGIN="$(cd ../.. && swift build --show-bin-path)/LiteRecordMacros-tool" swift build -c release
//   .build/release/Replica --litestream PATH --vfs PATH --sync-interval 200ms --torn-commits 10000
//
// (`make bench-replica` does this, once per sync interval, in a process of
// its own so that each run's figures stand alone.) Its own package, like Search/ and
// Import/; the plugin setting keeps swift-syntax out of the release build.
let plugin = Context.environment["LITERECORD_MACRO_PLUGIN"].flatMap { $0.isEmpty ? nil : $0 }
let package = Package(
    name: "Replica",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "LiteRecord", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "Replica",
            dependencies: [.product(name: "LiteRecord", package: "LiteRecord")],
            swiftSettings: plugin.map { [.unsafeFlags(["-load-plugin-executable", "\($0)#LiteRecordMacros"])] } ?? []),
    ],
    swiftLanguageModes: [.v6]
)
