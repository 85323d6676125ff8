// swift-tools-version: 6.1
import PackageDescription

// The `import` workload (Docs/Import.md): 100,000 JSON objects, each with a
// nested to-one, half of the keys already in the store, imported and saved
// by LiteRecord (`importObjects` + `save`), by hand (JSONSerialization + C
// upserts with prepared statements) and by GRDB records (JSONDecoder +
// `upsertAndFetch` / `upsert`):
//
//   swift build --product LiteRecordMacros            # at the repository root
//   cd Benchmarks/Import
//   LITERECORD_MACRO_PLUGIN="$(cd ../.. && swift build --show-bin-path)/LiteRecordMacros-tool" swift build -c release
//   .build/release/Import [N]
//
// A separate package, like CollectionQuery/: it does not touch the main
// harness. The macro plugin is the debug one, as `make bench` uses.
let plugin = Context.environment["LITERECORD_MACRO_PLUGIN"].flatMap { $0.isEmpty ? nil : $0 }
let package = Package(
    name: "Import",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "LiteRecord", path: "../.."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        .systemLibrary(name: "ImportSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(
            name: "Import",
            dependencies: [
                "ImportSQLite",
                .product(name: "LiteRecord", package: "LiteRecord"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: plugin.map { [.unsafeFlags(["-load-plugin-executable", "\($0)#LiteRecordMacros"])] } ?? []),
    ],
    swiftLanguageModes: [.v6]
)
