// swift-tools-version: 6.1
import PackageDescription

// Times `tags.contains(x)` (a JSON array searched with json_each) against
// plain column comparisons over 100,000 rows, and prints the query plans:
//
//   cd Benchmarks/CollectionQuery
//   LITERECORD_MACRO_PLUGIN=unused swift build -c release -Xswiftc -enable-testing
//   .build/release/CollectionQuery
//
// LITERECORD_MACRO_PLUGIN keeps swift-syntax out of the release build (the
// entity here is written by hand, so the macro is never expanded; the library
// warns that the plugin is missing). -enable-testing lets the program reach
// the translator and a connection for EXPLAIN QUERY PLAN.
let package = Package(
    name: "CollectionQuery",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "LiteRecord", path: "../..")],
    targets: [
        .executableTarget(
            name: "CollectionQuery",
            dependencies: [.product(name: "LiteRecord", package: "LiteRecord")])
    ]
)
