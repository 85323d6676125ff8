// swift-tools-version: 6.2
// A small notes app on LiteRecord: the package a newcomer copies. It depends
// on LiteRecord by path, in the form Docs/GettingStarted.md shows ("A local
// checkout"): `name:` makes the products `package: "LiteRecord"` whatever the
// checkout's folder is called (without it SwiftPM names a path dependency
// after its folder). In your own package, name its repository and a version
// instead.
import PackageDescription

let package = Package(
    name: "Notes",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "notes", targets: ["notes"]),
    ],
    dependencies: [
        .package(name: "LiteRecord", path: "../.."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // What the app does, apart from its command line, so that tests can
        // call it directly.
        .target(
            name: "NotesCore",
            dependencies: [.product(name: "LiteRecord", package: "LiteRecord")]
        ),
        // The command line: parses arguments, sets up the store, prints.
        .executableTarget(
            name: "notes",
            dependencies: [
                "NotesCore",
                .product(name: "LiteRecord", package: "LiteRecord"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "NotesCoreTests",
            dependencies: [
                "NotesCore",
                .product(name: "LiteRecord", package: "LiteRecord"),
                .product(name: "LiteRecordTesting", package: "LiteRecord"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
