import Foundation
import Testing

/// The integration's manifest takes any later version of its dependencies,
/// so that a service already on a newer Hummingbird resolves.
@Suite struct PackageManifestTests {
    @Test func dependenciesAreFromRequirementsNotExact() throws {
        let manifest = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Package.swift").standardized
        let text = try String(contentsOf: manifest, encoding: .utf8)
        #expect(!text.contains("exact:"), "Package.swift pins a version")
        #expect(text.contains(#"hummingbird", from: "2."#))
        #expect(text.contains(#"swift-service-lifecycle", from: "2."#))
    }

    /// Named as Hummingbird names its integrations (HummingbirdFluent,
    /// HummingbirdRedis, HummingbirdAuth), package, products and folder,
    /// with no second, deprecated name.
    @Test func namedByHummingbirdsConvention() throws {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized
        #expect(package.lastPathComponent == "HummingbirdLiteRecord")
        let text = try String(contentsOf: package.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(text.contains(#"name: "HummingbirdLiteRecord","#))
        #expect(text.contains(#".library(name: "HummingbirdLiteRecord", targets: ["HummingbirdLiteRecord"])"#))
        #expect(text.contains(#".library(name: "HummingbirdLiteRecordTesting", targets: ["HummingbirdLiteRecordTesting"])"#))
        #expect(!text.contains("LiteRecordHummingbird"), "an old name is left in Package.swift")
    }
}
