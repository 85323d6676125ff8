// swift-tools-version: 6.1
// `make bench-server`: the routes of Examples/Bookmarks served three ways by
// one Hummingbird binary — LiteRecord (the example's own router), GRDB 7.10
// (`DatabasePool`, records and associations) and Fluent (fluent-kit on
// fluent-sqlite-driver) — for wrk to load. A package of its own, so that
// neither the library nor the examples ever build GRDB or Fluent.
//
//   make bench-server                       # from the repository root
//   .build/release/bookmarks-bench --engine grdb --port 8081 --store /tmp/b.sqlite
import PackageDescription

/// The `@Entity` macro plugin built in debug mode beforehand (see the
/// library's Package.swift); unset, the macro is built here as usual.
let macroPlugin = Context.environment["LITERECORD_MACRO_PLUGIN"].flatMap { $0.isEmpty ? nil : $0 }

let package = Package(
    name: "BookmarksBench",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "LiteRecord", path: "../.."),
        .package(name: "Bookmarks", path: "../../Examples/Bookmarks"),
        .package(name: "HummingbirdLiteRecord", path: "../../Integrations/HummingbirdLiteRecord"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/vapor/fluent-kit", exact: "1.57.0"),
        .package(url: "https://github.com/vapor/fluent-sqlite-driver", exact: "4.9.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .executableTarget(
            name: "bookmarks-bench",
            dependencies: [
                .product(name: "LiteRecord", package: "LiteRecord"),
                .product(name: "BookmarksCore", package: "Bookmarks"),
                .product(name: "HummingbirdLiteRecord", package: "HummingbirdLiteRecord"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "FluentKit", package: "fluent-kit"),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/BookmarksBench",
            swiftSettings: macroPlugin.map { [.unsafeFlags(["-load-plugin-executable", "\($0)#LiteRecordMacros"])] } ?? []
        ),
    ],
    swiftLanguageModes: [.v6]
)
