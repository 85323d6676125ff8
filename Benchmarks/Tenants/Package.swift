// swift-tools-version: 6.1
import PackageDescription

// A store per tenant under load (Docs/Deployment.md): N tenants of 100
// rows, `maxOpen` stacks open at once, tasks reading and writing tenants
// picked with a skewed (Zipf-like) choice, against the same load on one
// store holding every tenant's rows with a tenant column:
//
//   swift build --product LiteRecordMacros            # at the repository root
//   cd Benchmarks/Tenants
//   LITERECORD_MACRO_PLUGIN="$(cd ../.. && swift build --show-bin-path)/LiteRecordMacros-tool" swift build -c release
//   .build/release/Tenants [--tenants N] [--seconds S] [--max-open M] [--tasks T]
//
// (`make bench-tenants` does this.) A separate package: it does not touch the
// main harness.
let plugin = Context.environment["LITERECORD_MACRO_PLUGIN"].flatMap { $0.isEmpty ? nil : $0 }
let package = Package(
    name: "Tenants",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "LiteRecord", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "Tenants",
            dependencies: [.product(name: "LiteRecord", package: "LiteRecord")],
            swiftSettings: plugin.map { [.unsafeFlags(["-load-plugin-executable", "\($0)#LiteRecordMacros"])] } ?? []),
    ],
    swiftLanguageModes: [.v6]
)
