// swift-tools-version: 6.1
import PackageDescription

// What persistent history costs (Docs/History.md): `make bench`'s insert, update
// and delete workloads (100,000 rows of its entity, one save each) and a
// run of small saves, with history off and on; the bytes history keeps per
// change; and `updateAll` against loading and editing every object and
// against raw C's `UPDATE`:
//
//   swift build --product LiteRecordMacros            # at the repository root
//   cd Benchmarks/History
//   LITERECORD_MACRO_PLUGIN="$(cd ../.. && swift build --show-bin-path)/LiteRecordMacros-tool" swift build -c release
//   .build/release/History [N] [runs]
//
// (`make bench-history` does this.) A separate package, like Search/: it
// does not touch the main harness.
let plugin = Context.environment["LITERECORD_MACRO_PLUGIN"].flatMap { $0.isEmpty ? nil : $0 }
let package = Package(
    name: "History",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "LiteRecord", path: "../..")
    ],
    targets: [
        .systemLibrary(name: "HistorySQLite", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(
            name: "History",
            dependencies: [
                "HistorySQLite",
                .product(name: "LiteRecord", package: "LiteRecord"),
            ],
            swiftSettings: plugin.map { [.unsafeFlags(["-load-plugin-executable", "\($0)#LiteRecordMacros"])] } ?? []),
    ],
    swiftLanguageModes: [.v6]
)
