// swift-tools-version: 6.2
import CompilerPluginSupport
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// A prebuilt `@Entity` macro plugin, for `make bench` only.
///
/// The benchmarks are built in release mode, and a release build of
/// swift-syntax takes longer on a small machine than everything else put
/// together. The macro only writes source code, which is the same whichever
/// way the macro itself was compiled, so `make bench` builds it in debug mode
/// first and names it here; LiteRecord then does not depend on the macro
/// target, and `Benchmarks/Package.swift` hands the plugin to the compiler.
/// Leave it unset everywhere else.
let prebuiltMacroPlugin = Context.environment["LITERECORD_MACRO_PLUGIN"].flatMap { $0.isEmpty ? nil : $0 }

let package = Package(
    name: "LiteRecord",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "LiteRecord", targets: ["LiteRecord"]),
        .library(name: "LiteRecordTesting", targets: ["LiteRecordTesting"]),
        .executable(name: "literecord", targets: ["literecord"]),
    ],
    dependencies: [
        // A range, so that an app with another macro package can resolve:
        // 602 is the first release for Swift 6.2 (the tools version above);
        // 603.0.1 is the one built and tested here (Docs/Platforms.md).
        .package(url: "https://github.com/swiftlang/swift-syntax", "602.0.0"..<"604.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Tests only: the property-based hostile-value checks of the reliability suite.
        .package(url: "https://github.com/x-sheep/swift-property-based", exact: "2.0.1"),
        // `make docs` only: the `generate-documentation` command. Its tools
        // (SymbolKit, snippet-extract) are built only when it runs; `swift build`
        // just compiles the plugin's own script, in seconds.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
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
                .product(name: "Logging", package: "swift-log"),
            ] + (prebuiltMacroPlugin == nil ? ["LiteRecordMacros"] : []),
            // The App Store's privacy manifest: why the library reads file
            // metadata (its stores' sizes and dates). Nothing reads it at run time.
            resources: [.copy("PrivacyInfo.xcprivacy")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "LiteRecordTesting",
            dependencies: ["LiteRecord"],
            swiftSettings: strictSettings
        ),
        // The CLI's folder is not `Sources/literecord`: on a case-insensitive
        // volume (macOS's default) that is the library's `Sources/LiteRecord`.
        .executableTarget(
            name: "literecord",
            dependencies: [
                "LiteRecord",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/LiteRecordCLI",
            swiftSettings: strictSettings
        ),
        // The child side of the process tests that need one of their own
        // (LiteRecordTests starts it from the build folder, next to the test
        // bundle, as it starts `literecord`): built with the tests, shipped
        // in no product.
        .executableTarget(
            name: "LiteRecordTestChild",
            dependencies: [
                "LiteRecord",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tests/LiteRecordTestChild",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LiteRecordTests",
            dependencies: [
                "LiteRecord", "LiteRecordTesting", "CSQLite",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
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
