import Foundation
import Testing

/// The integration's manifest takes any later version of its dependencies,
/// so that a service already on a newer Hummingbird resolves (issue #63
/// item 10).
@Suite struct PackageManifestTests {
    @Test func dependenciesAreFromRequirementsNotExact() throws {
        let manifest = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Package.swift").standardized
        let text = try String(contentsOf: manifest, encoding: .utf8)
        #expect(!text.contains("exact:"), "Package.swift pins a version")
        #expect(text.contains(#"hummingbird", from: "2."#))
        #expect(text.contains(#"swift-service-lifecycle", from: "2."#))
    }
}
