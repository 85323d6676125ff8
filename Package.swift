// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "LiteRecord",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "LiteRecord", targets: ["LiteRecord"]),
        .library(name: "LiteRecordTesting", targets: ["LiteRecordTesting"]),
        .executable(name: "literecord", targets: ["literecord"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax", exact: "603.0.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // The only place that sees C: a system library over libsqlite3-dev.
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .macro(
            name: "LiteRecordMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "LiteRecord",
            dependencies: [
                "CSQLite",
                "LiteRecordMacros",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "LiteRecordTesting",
            dependencies: ["LiteRecord"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "literecord",
            dependencies: [
                "LiteRecord",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LiteRecordTests",
            dependencies: ["LiteRecord", "LiteRecordTesting", "CSQLite"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LiteRecordMacrosTests",
            dependencies: [
                "LiteRecordMacros",
                .product(name: "SwiftSyntaxMacrosTestSupport", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LiteRecordTestingTests",
            dependencies: ["LiteRecord", "LiteRecordTesting"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
