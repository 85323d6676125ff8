// swift-tools-version: 6.2
// LiteRecord for Hummingbird services: the stack as a service of the service
// group, store errors answered with the HTTP status they mean, and strong
// entity tags compared as RFC 9110 says. Its own package, as hummingbird-fluent
// is for Fluent, so that the library itself never builds Hummingbird.
import PackageDescription

let package = Package(
    name: "LiteRecordHummingbird",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LiteRecordHummingbird", targets: ["LiteRecordHummingbird"]),
        // For a service's tests: a store per test, reopened for a restart,
        // and requests sent at once over connections of their own.
        .library(name: "LiteRecordHummingbirdTesting", targets: ["LiteRecordHummingbirdTesting"]),
    ],
    dependencies: [
        // By path, named so that its products are `package: "LiteRecord"`
        // whatever the checkout's folder is called.
        .package(name: "LiteRecord", path: "../.."),
        // Traits off: nothing here reads swift-configuration.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
    ],
    targets: [
        .target(
            name: "LiteRecordHummingbird",
            dependencies: [
                .product(name: "LiteRecord", package: "LiteRecord"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "LiteRecordHummingbirdTesting",
            dependencies: [
                .product(name: "LiteRecord", package: "LiteRecord"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "LiteRecordHummingbirdTests",
            dependencies: [
                "LiteRecordHummingbird",
                "LiteRecordHummingbirdTesting",
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
