// swift-tools-version: 6.2
// LiteRecord for Vapor applications: the stack in the application's
// lifecycle, store errors answered as the HTTP statuses they mean, and
// conditional requests evaluated as RFC 9110 orders them. Its own package, as
// fluent is Vapor's for Fluent, so that the library itself never builds Vapor.
import PackageDescription

let package = Package(
    name: "VaporLiteRecord",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "VaporLiteRecord", targets: ["VaporLiteRecord"]),
    ],
    dependencies: [
        // By path, named so that its products are `package: "LiteRecord"`
        // whatever the checkout's folder is called.
        .package(name: "LiteRecord", path: "../.."),
        // The framework-free part it shares with the other integrations.
        .package(name: "LiteRecordHTTP", path: "../LiteRecordHTTP"),
        .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
    ],
    targets: [
        .target(
            name: "VaporLiteRecord",
            dependencies: [
                .product(name: "LiteRecord", package: "LiteRecord"),
                .product(name: "LiteRecordHTTP", package: "LiteRecordHTTP"),
                .product(name: "Vapor", package: "vapor"),
            ]
        ),
        .testTarget(
            name: "VaporLiteRecordTests",
            dependencies: [
                "VaporLiteRecord",
                .product(name: "LiteRecord", package: "LiteRecord"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "VaporTesting", package: "vapor"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
