import Foundation

/// A tenant's name, checked before any path is built from it
/// (Docs/Internals/Invariants.md, "Tenant names are checked before any path is built").
///
/// The rule keeps every name a plain file name inside the folder: only
/// `A–Z a–z 0–9 . _ -`, so no `/`, NUL or other separator can reach a path,
/// and no leading `.`, so neither `.` nor `..` nor a hidden file can be named.
struct TenantName: Sendable {
    /// The name as the caller spelled it.
    let name: String
    /// The name that identifies the tenant: names differing only in letter
    /// case are one tenant, as they are one file on a case-insensitive volume.
    let key: String

    static let maxLength = 64
    static let fileExtension = ".sqlite"

    /// Checks `name`, touching no file.
    ///
    /// - Throws: `.validationFailed` saying what is wrong with the name.
    init(_ name: String) throws(LiteRecordError) {
        let scalars = name.unicodeScalars
        guard !scalars.isEmpty else {
            throw Self.refusal(name, "is empty")
        }
        guard scalars.count <= Self.maxLength else {
            throw Self.refusal(name, "is longer than \(Self.maxLength) characters")
        }
        guard scalars.allSatisfy(Self.isAllowed) else {
            throw Self.refusal(name, "has a character other than A–Z, a–z, 0–9, '.', '_' and '-'")
        }
        guard scalars.first != "." else {
            throw Self.refusal(name, "starts with '.'")
        }
        self.name = name
        self.key = name.lowercased()
    }

    /// The tenant name of a store file's name, or `nil` when the file is not
    /// one (another extension, a `-wal`, a name the rule refuses).
    static func fromFileName(_ fileName: String) -> TenantName? {
        guard fileName.hasSuffix(fileExtension) else { return nil }
        return try? TenantName(String(fileName.dropLast(fileExtension.count)))
    }

    var fileName: String { name + Self.fileExtension }

    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", ".", "_", "-": true
        default: false
        }
    }

    private static func refusal(_ name: String, _ reason: String) -> LiteRecordError {
        // The name is shown escaped: it may hold control characters or NUL.
        let shown = name.unicodeScalars.prefix(80).map { $0.escaped(asASCII: true) }.joined()
        return LiteRecordError(
            .validationFailed,
            "the tenant name \"\(shown)\" \(reason): a tenant name is 1–\(maxLength) characters of A–Z, a–z, 0–9, '.', '_' and '-', not starting with '.'")
    }
}
