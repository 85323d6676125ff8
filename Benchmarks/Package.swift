// swift-tools-version: 6.1
// The benchmark harness lives in its own package so that the library never
// resolves or builds its comparison dependencies (GRDB, Fluent).
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

/// The `@Entity` macro plugin built beforehand in debug mode by `make bench`
/// (see `LITERECORD_MACRO_PLUGIN` in the library's Package.swift): the macro
/// writes the same code either way, and skipping swift-syntax's release build
/// saves most of the build time. Unset, the macro is built here as usual.
let macroPlugin = Context.environment["LITERECORD_MACRO_PLUGIN"].flatMap { $0.isEmpty ? nil : $0 }
let macroSettings: [SwiftSetting] = macroPlugin.map {
    [.unsafeFlags(["-load-plugin-executable", "\($0)#LiteRecordMacros"])]
} ?? []

let package = Package(
    name: "LiteRecordBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "LiteRecord", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/vapor/fluent-kit", exact: "1.57.0"),
        .package(url: "https://github.com/vapor/fluent-sqlite-driver", exact: "4.9.0"),
        // Already in the graph through Fluent; named for its event loop group.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // The raw-C baseline's own window onto libsqlite3 (the library's
        // CSQLite target is internal to it, and sqlite-nio vendors its own).
        .systemLibrary(
            name: "BenchSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .executableTarget(
            name: "LiteRecordBenchmarks",
            dependencies: [
                "BenchSQLite",
                .product(name: "LiteRecord", package: "LiteRecord"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "FluentKit", package: "fluent-kit"),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings + macroSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
