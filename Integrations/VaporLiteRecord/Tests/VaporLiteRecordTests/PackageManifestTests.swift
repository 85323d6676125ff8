import Foundation
import Testing

/// The integration's manifest takes any later Vapor, so that an application
/// already on a newer one resolves, and names LiteRecord's packages by path.
@Suite struct PackageManifestTests {
    @Test func vaporIsAFromRequirement() throws {
        let manifest = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Package.swift").standardized
        let text = try String(contentsOf: manifest, encoding: .utf8)
        #expect(!text.contains("exact:"), "Package.swift pins a version")
        #expect(text.contains(#"vapor/vapor", from: "4."#))
        #expect(text.contains(#".package(name: "LiteRecordHTTP", path: "../LiteRecordHTTP")"#))
        #expect(text.contains(#".library(name: "VaporLiteRecord", targets: ["VaporLiteRecord"])"#))
    }
}
