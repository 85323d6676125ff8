// swift-tools-version: 6.2
// A bookmarks service on Hummingbird and LiteRecord: the server a newcomer
// copies. Like Examples/Notes it depends on LiteRecord by path, named so that
// its products are `package: "LiteRecord"` whatever the checkout's folder is
// called; in your own package, name LiteRecord's repository and a version.
import PackageDescription

/// The `@Entity` macro plugin built beforehand in debug mode, for
/// `make bench-server`'s release build only (see `LITERECORD_MACRO_PLUGIN` in
/// the library's Package.swift): the macro writes the same code either way,
/// and a release build of swift-syntax takes longer than everything else.
/// Leave it unset everywhere else: the macro is then built here as usual.
let macroPlugin = Context.environment["LITERECORD_MACRO_PLUGIN"].flatMap { $0.isEmpty ? nil : $0 }
let macroSettings: [SwiftSetting] = macroPlugin.map {
    [.unsafeFlags(["-load-plugin-executable", "\($0)#LiteRecordMacros"])]
} ?? []

let package = Package(
    name: "Bookmarks",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "bookmarks-server", targets: ["bookmarks-server"]),
        // For Benchmarks/Server, which serves the same routes beside GRDB and Fluent.
        .library(name: "BookmarksCore", targets: ["BookmarksCore"]),
    ],
    dependencies: [
        .package(name: "LiteRecord", path: "../.."),
        // The Hummingbird integration: the stack as a service, store errors
        // as statuses, entity tags. In your own package, name its repository.
        .package(name: "HummingbirdLiteRecord", path: "../../Integrations/HummingbirdLiteRecord"),
        // Traits off: the service decodes its own JSON and reads no
        // swift-configuration, so neither is built.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // Already built for Hummingbird's MetricsMiddleware; named for the
        // factory bootstrap.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        // /metrics: the Prometheus text format written by the factory every
        // swift-metrics recorder reports to.
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The bearer token: an authenticator and IsAuthenticatedMiddleware.
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        // Already built for Hummingbird; named for the X-Request-ID header's name.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
    ],
    targets: [
        // The entities, the routes and the application builder: everything but
        // the command line, so that tests drive it without a process.
        .target(
            name: "BookmarksCore",
            dependencies: [
                .product(name: "LiteRecord", package: "LiteRecord"),
                .product(name: "HummingbirdLiteRecord", package: "HummingbirdLiteRecord"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: macroSettings
        ),
        // `bookmarks-server --port P --store PATH`: opens the stack, serves,
        // and on SIGTERM finishes in-flight requests and closes the stack.
        .executableTarget(
            name: "bookmarks-server",
            dependencies: [
                "BookmarksCore",
                .product(name: "LiteRecord", package: "LiteRecord"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "HummingbirdLiteRecord", package: "HummingbirdLiteRecord"),
            ]
        ),
        // Docs/Server.md's complete minimal service, compiled here as printed
        // there (ServerGuideTests compares the two and runs it).
        .executableTarget(
            name: "todos-server",
            dependencies: [
                .product(name: "LiteRecord", package: "LiteRecord"),
                .product(name: "HummingbirdLiteRecord", package: "HummingbirdLiteRecord"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: macroSettings
        ),
        .testTarget(
            name: "BookmarksCoreTests",
            dependencies: [
                "BookmarksCore",
                .product(name: "LiteRecord", package: "LiteRecord"),
                .product(name: "HummingbirdLiteRecord", package: "HummingbirdLiteRecord"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
