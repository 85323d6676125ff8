import Foundation

/// The copies of a store taken before migrations, as files next to it.
///
/// While a migration runs its copy is `<store>.pre-migration-<old model
/// fingerprint>` (so that failed attempts replace one copy). A migration that
/// removed tables or columns keeps the copy under
/// `<store>.pre-migration-<UTC timestamp>`, and only the newest
/// ``MigrationReport/keptCopyLimit`` copies of the store are kept. Every copy
/// counts, whatever state it was left in: one still under its fingerprint
/// name (a failed migration's, or one whose process died after the commit and
/// before the copy was removed or kept) is as old as its file.
enum PreMigrationCopies {
    static let marker = ".pre-migration-"

    /// A kept copy and when it was kept, from its name.
    struct Kept {
        let url: URL
        let stamp: String
        let attempt: Int
    }

    /// Every pre-migration copy of the store at `store` (kept ones and ones
    /// left by failed or interrupted migrations), newest first by name.
    static func all(of store: URL) -> [URL] {
        let folder = store.deletingLastPathComponent()
        let prefix = store.lastPathComponent + marker
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return
            names
            .filter { name in
                name.hasPrefix(prefix) && !["-wal", "-shm", "-journal"].contains { name.hasSuffix($0) }
            }
            .sorted(by: >)
            .map { folder.appendingPathComponent($0) }
    }

    /// The copies kept after migrations that removed data, newest first.
    static func kept(of store: URL) -> [Kept] {
        let prefix = store.lastPathComponent + marker
        return all(of: store).compactMap { url -> Kept? in
            let suffix = url.lastPathComponent.dropFirst(prefix.count)
            let parts = suffix.split(separator: "-", maxSplits: 1)
            guard let stamp = parts.first, isStamp(stamp) else { return nil }
            var attempt = 1
            if parts.count == 2 {
                guard let number = Int(parts[1]), number > 1 else { return nil }
                attempt = number
            }
            return Kept(url: url, stamp: String(stamp), attempt: attempt)
        }
        .sorted { ($0.stamp, $0.attempt) > ($1.stamp, $1.attempt) }
    }

    /// Every copy of the store at `store`, newest first: kept copies dated by
    /// the timestamp in their name, every other copy (left under its
    /// fingerprint name) by its file's modification time, so that the
    /// rotation finds a copy whatever state a migration left it in.
    static func newestFirst(of store: URL) -> [URL] {
        let keptDates = Dictionary(
            kept(of: store).map { ($0.url.path, (date: date(fromStamp: $0.stamp), attempt: $0.attempt)) },
            uniquingKeysWith: { first, _ in first })
        let dated = all(of: store).map { url -> (url: URL, date: Date, attempt: Int) in
            if let kept = keptDates[url.path], let date = kept.date { return (url, date, kept.attempt) }
            let modified = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
            return (url, modified ?? .distantPast, 1)
        }
        return dated.sorted {
            ($0.date, $0.attempt, $0.url.lastPathComponent) > ($1.date, $1.attempt, $1.url.lastPathComponent)
        }.map(\.url)
    }

    /// `yyyyMMddTHHmmssZ`, as ``FileStamp/string(_:)`` writes it.
    private static func isStamp(_ text: Substring) -> Bool {
        let characters = Array(text)
        guard characters.count == 16, characters[8] == "T", characters[15] == "Z" else { return false }
        return (characters[0..<8] + characters[9..<15]).allSatisfy { $0.isASCII && $0.isNumber }
    }

    static func stamp(_ date: Date) -> String {
        FileStamp.string(date)
    }

    private static func date(fromStamp stamp: String) -> Date? {
        FileStamp.date(stamp)
    }

    /// A free name for a copy kept now: the timestamp, with `-2`, `-3`, … when
    /// a copy of the same second exists.
    static func keptName(for store: URL, at date: Date) -> URL {
        let base = store.path + marker + stamp(date)
        var path = base
        var attempt = 1
        while FileManager.default.fileExists(atPath: path) {
            attempt += 1
            path = "\(base)-\(attempt)"
        }
        return URL(fileURLWithPath: path)
    }
}

extension Migrator {
    /// Keeps the copy taken before a migration that removed data under a
    /// timestamped name, then deletes the oldest copies of the store beyond
    /// ``MigrationReport/keptCopyLimit`` (``PreMigrationCopies/newestFirst(of:)``:
    /// kept ones and ones left under their fingerprint name alike). Failing to
    /// rename leaves the copy under its first name and deletes nothing.
    func keepBackup(_ backup: URL, _ report: inout MigrationReport) {
        guard let url = store.url else { return }
        let kept = PreMigrationCopies.keptName(for: url, at: Date())
        let files = FileOperations.current
        do {
            try files.rename(backup.path, to: kept.path)
            report.keptCopyURL = kept
        } catch {
            store.logger.warning(
                "could not rename the pre-migration copy; it stays under its first name",
                metadata: ["copy": "\(backup.path)", "error": "\(error.reason)"])
            report.keptCopyURL = backup
            log("kept the store as it was before the migration at \(backup.path)", &report)
            return
        }
        do {
            // The copy's creation (VACUUM INTO) and its new name, on disk.
            try FileOperations.syncFolder(of: kept.path)
        } catch {
            store.logger.warning(
                "could not sync the folder of the kept pre-migration copy; a power loss may undo its name",
                metadata: ["copy": "\(kept.path)", "error": "\(error.reason)"])
        }
        log("kept the store as it was before the migration at \(kept.path)", &report)
        // The copy just kept always counts as the newest, even if the clock
        // went back since an older one was named.
        let older = PreMigrationCopies.newestFirst(of: url).filter { $0.path != kept.path }
        for old in older.dropFirst(MigrationReport.keptCopyLimit - 1) {
            do {
                try files.unlink(old.path)
                // A copy someone opened (or a migration left) may have companions.
                for suffix in ["-wal", "-shm", "-journal"] { try? files.unlink(old.path + suffix) }
                report.deletedCopies.append(old)
                log("deleted the oldest copy \(old.path)", &report)
            } catch {
                store.logger.warning(
                    "could not delete an old pre-migration copy",
                    metadata: ["copy": "\(old.path)", "error": "\(error.reason)"])
            }
        }
        if !report.deletedCopies.isEmpty { try? FileOperations.syncFolder(of: url.path) }
    }
}
