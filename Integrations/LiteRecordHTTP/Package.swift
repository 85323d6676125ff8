// swift-tools-version: 6.2
// What LiteRecord's HTTP integrations share, with no web framework: entity
// tags, conditional requests evaluated in RFC 9110 §13.2.2's order over
// header strings, and the status, problem type and sentence a store error is
// answered with. VaporLiteRecord builds on it; a framework integration adds
// only the conversion to its own request, response and error types.
import PackageDescription

let package = Package(
    name: "LiteRecordHTTP",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LiteRecordHTTP", targets: ["LiteRecordHTTP"]),
    ],
    dependencies: [
        // By path, named so that its products are `package: "LiteRecord"`
        // whatever the checkout's folder is called.
        .package(name: "LiteRecord", path: "../.."),
    ],
    targets: [
        .target(
            name: "LiteRecordHTTP",
            dependencies: [.product(name: "LiteRecord", package: "LiteRecord")]
        ),
        .testTarget(
            name: "LiteRecordHTTPTests",
            dependencies: ["LiteRecordHTTP", .product(name: "LiteRecord", package: "LiteRecord")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
