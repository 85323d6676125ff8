// swift-tools-version: 6.1
import PackageDescription

// The `search` workload (Docs/Search.md): 100,000 articles of generated text,
// 200 searches of one and two words with a filter, by LiteRecord
// (`Article.search(_:matching:limit:in:)`), by hand-written C on the same
// FTS5 table, and by a `LIKE` scan; and what `.searchable` adds to `insert`
// and `update`:
//
//   swift build --product LiteRecordMacros            # at the repository root
//   cd Benchmarks/Search
//   LITERECORD_MACRO_PLUGIN="$(cd ../.. && swift build --show-bin-path)/LiteRecordMacros-tool" swift build -c release
//   .build/release/Search [N]
//
// (`make bench-search` does this.) A separate package, like Import/: it
// does not touch the main harness. The entities are written by hand, so
// the macro is never expanded; the plugin setting only keeps swift-syntax
// out of the release build.
let plugin = Context.environment["LITERECORD_MACRO_PLUGIN"].flatMap { $0.isEmpty ? nil : $0 }
let package = Package(
    name: "Search",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "LiteRecord", path: "../..")
    ],
    targets: [
        .systemLibrary(name: "SearchSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(
            name: "Search",
            dependencies: [
                "SearchSQLite",
                .product(name: "LiteRecord", package: "LiteRecord"),
            ],
            swiftSettings: plugin.map { [.unsafeFlags(["-load-plugin-executable", "\($0)#LiteRecordMacros"])] } ?? []),
    ],
    swiftLanguageModes: [.v6]
)
