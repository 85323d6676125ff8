import Foundation

/// The UTC timestamp, `yyyyMMddTHHmmssZ`, that names the files a store keeps
/// beside itself: a store moved aside (`<store>.mismatch-<stamp>`) and a
/// copy kept by a migration (`<store>.pre-migration-<stamp>`).
enum FileStamp {
    /// The stamp of `date`.
    static func string(_ date: Date) -> String {
        formatter().string(from: date)
    }

    /// The date `stamp` names; `nil` when it is not a stamp.
    static func date(_ stamp: String) -> Date? {
        formatter().date(from: stamp)
    }

    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter
    }
}
