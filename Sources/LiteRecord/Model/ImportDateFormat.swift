public import Foundation

/// How an import reads a date attribute from JSON: the `dateFormat:` of
/// ``Attribute(_:originalName:importKey:dateFormat:)``.
///
/// ```swift
/// @Attribute(importKey: "born", dateFormat: .iso8601) var birthday: Date?
/// @Attribute(dateFormat: .unixMilliseconds) var updatedAt = Date()
/// @Attribute(dateFormat: .custom("dd/MM/yyyy HH:mm", timeZone: TimeZone(identifier: "Europe/Paris"))) var due = Date()
/// ```
///
/// Without a format an import reads a string as ISO 8601 and a number as
/// Unix seconds (``automatic``). Seconds and milliseconds are never guessed
/// from the size of the number: a store that sends milliseconds says so with
/// ``unixMilliseconds``.
public struct ImportDateFormat: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case automatic
        case iso8601
        case unixSeconds
        case unixMilliseconds
        case custom(String, TimeZone)
    }

    let kind: Kind

    /// A string is read as ISO 8601 (as ``iso8601``), a number as Unix
    /// seconds; a numeric string is refused, since `"2024"` may be a year
    /// as well as a time. What an attribute without `dateFormat:` uses.
    public static let automatic = ImportDateFormat(kind: .automatic)
    /// ISO 8601 text: `2024-05-01`, `2024-05-01T12:30:00Z`,
    /// `2024-05-01T12:30:00.250+02:00`, `2024-05-01 12:30:00` (a space for the
    /// `T`); a time without a zone is UTC. Numbers are refused, and so is a
    /// leap second (`:60`), which a `Date` cannot hold.
    public static let iso8601 = ImportDateFormat(kind: .iso8601)
    /// Seconds since 1970-01-01 00:00:00 UTC, as a number or a numeric string
    /// (digits, an optional fraction and exponent; not hexadecimal); fractions
    /// are kept to a `Double`'s precision.
    public static let unixSeconds = ImportDateFormat(kind: .unixSeconds)
    /// Milliseconds since 1970-01-01 00:00:00 UTC, as a number or a numeric string.
    public static let unixMilliseconds = ImportDateFormat(kind: .unixMilliseconds)

    /// A `DateFormatter` pattern (`yyyy-MM-dd HH:mm`), read with the
    /// `en_US_POSIX` locale — never the device's — in `timeZone` (UTC unless
    /// given), so the same text gives the same date on every machine.
    ///
    /// ```swift
    /// @Attribute(dateFormat: .custom("dd/MM/yyyy")) var due = Date()
    /// ```
    public static func custom(_ format: String, timeZone: TimeZone? = nil) -> ImportDateFormat {
        ImportDateFormat(kind: .custom(format, timeZone ?? ImportDateFormat.utc))
    }

    static let utc = TimeZone(secondsFromGMT: 0) ?? TimeZone.current

    public var description: String {
        switch kind {
        case .automatic: "automatic"
        case .iso8601: "ISO 8601"
        case .unixSeconds: "Unix seconds"
        case .unixMilliseconds: "Unix milliseconds"
        case .custom(let format, let zone): "custom \"\(format)\" in \(zone.identifier)"
        }
    }
}
