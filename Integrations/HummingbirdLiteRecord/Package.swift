// swift-tools-version: 6.2
// LiteRecord for Hummingbird services: the stack as a service of the service
// group, store errors answered with the HTTP status they mean, and strong
// entity tags compared as RFC 9110 says. Its own package, as hummingbird-fluent
// is for Fluent, so that the library itself never builds Hummingbird, and
// named as Hummingbird names its integrations (HummingbirdFluent,
// HummingbirdAuth).
import PackageDescription

let package = Package(
    name: "HummingbirdLiteRecord",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "HummingbirdLiteRecord", targets: ["HummingbirdLiteRecord"]),
        // For a service's tests: a store per test, reopened for a restart,
        // and requests sent at once over connections of their own.
        .library(name: "HummingbirdLiteRecordTesting", targets: ["HummingbirdLiteRecordTesting"]),
    ],
    dependencies: [
        // By path, named so that its products are `package: "LiteRecord"`
        // whatever the checkout's folder is called.
        .package(name: "LiteRecord", path: "../.."),
        // The framework-free part it shares with the other integrations:
        // entity tags, conditional requests, the store-error table, the
        // history feed.
        .package(name: "LiteRecordHTTP", path: "../LiteRecordHTTP"),
        // Traits off: nothing here reads swift-configuration.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
    ],
    targets: [
        .target(
            name: "HummingbirdLiteRecord",
            dependencies: [
                .product(name: "LiteRecord", package: "LiteRecord"),
                .product(name: "LiteRecordHTTP", package: "LiteRecordHTTP"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "HummingbirdLiteRecordTesting",
            dependencies: [
                .product(name: "LiteRecord", package: "LiteRecord"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "HummingbirdLiteRecordTests",
            dependencies: [
                "HummingbirdLiteRecord",
                "HummingbirdLiteRecordTesting",
                .product(name: "LiteRecord", package: "LiteRecord"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
