public import Foundation

/// Whether a store keeps its persistent history (Docs/History.md), and for how long.
///
/// ```swift
/// let stack = try RecordStack(storeAt: url, entities: [Note.self], history: .enabled)
/// let pruned = try RecordStack(storeAt: url, entities: [Note.self], history: .enabled(keepingFor: .seconds(7 * 86_400)))
/// ```
///
/// History is a property of the store file: once a stack enabled it, every
/// stack that writes the file records it, including stacks opened without
/// `history:` (so that no writer, in this process or another, leaves a gap).
/// Only ``disabled`` turns it off, deleting what was kept.
public struct HistoryOptions: Sendable, Equatable {
    enum Mode: Equatable {
        /// Record exactly when the store already does (the initializers without `history:`).
        case asStored
        case enabled
        case disabled
    }

    let mode: Mode
    /// How long a transaction is kept; `nil` keeps every one until ``RecordStack/deleteHistory(before:)``.
    public let retention: Duration?

    /// Records a transaction for every commit that changes rows, and keeps it
    /// until ``RecordStack/deleteHistory(before:)`` deletes it.
    public static let enabled = HistoryOptions(mode: .enabled, retention: nil)

    /// Records history as ``enabled`` does, and deletes transactions older
    /// than `retention` as later ones commit (at most once a minute, in the
    /// committing transaction). A token older than what was deleted then
    /// throws `.historyExpired`, as after ``RecordStack/deleteHistory(before:)``.
    public static func enabled(keepingFor retention: Duration) -> HistoryOptions {
        HistoryOptions(mode: .enabled, retention: retention)
    }

    /// Records no history, and deletes the history a store kept: opening a
    /// store with `.disabled` is the one way to turn history off.
    public static let disabled = HistoryOptions(mode: .disabled, retention: nil)

    /// What the initializers without `history:` do: record history exactly
    /// when the store already keeps it.
    static let asStored = HistoryOptions(mode: .asStored, retention: nil)
}

/// The position of one transaction in a store's history: pass the last token
/// you processed to ``RecordStack/fetchHistory(after:matching:limit:)`` to get
/// what committed since.
///
/// Tokens grow with every transaction, are never reused (deleting history
/// does not give them back) and stay valid across reopening the store. A
/// token names its store: one from another store (or from a store that was
/// moved aside and created again) throws `.historyExpired` rather than
/// answering with another store's transactions.
///
/// ```swift
/// let saved = try JSONEncoder().encode(token)                 // keep it
/// let token = try JSONDecoder().decode(HistoryToken.self, from: saved)
/// let url = "/changes?since=\(token)"                          // or as text
/// let same = HistoryToken(token.description)
/// ```
public struct HistoryToken: Sendable, Hashable, Comparable, Codable, CustomStringConvertible, LosslessStringConvertible {
    /// The transaction's number in its store: 1 for the first, growing by at least one.
    public let transactionNumber: Int64
    /// The store's history identifier (a random value written when history
    /// was first enabled).
    let storeID: String

    init(transactionNumber: Int64, storeID: String) {
        self.transactionNumber = transactionNumber
        self.storeID = storeID
    }

    /// Tokens of one store compare by transaction; tokens of different stores
    /// compare by store first, so that sorting never mixes them.
    public static func < (lhs: HistoryToken, rhs: HistoryToken) -> Bool {
        lhs.storeID == rhs.storeID ? lhs.transactionNumber < rhs.transactionNumber : lhs.storeID < rhs.storeID
    }

    /// `"<transaction>-<store>"`, e.g. `"42-9f2c61d0a4b8e7f1"`: short, safe in a URL.
    public var description: String { "\(transactionNumber)-\(storeID)" }

    /// Reads ``description``; `nil` for anything else.
    public init?(_ description: String) {
        guard let dash = description.firstIndex(of: "-"),
            let number = Int64(description[..<dash]), number >= 0
        else { return nil }
        // text-audit: `dash` is an index of this very string, before its end.
        let store = description[description.index(after: dash)...]
        guard !store.isEmpty, store.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
        else { return nil }
        self.init(transactionNumber: number, storeID: String(store))
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let token = HistoryToken(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not a history token"))
        }
        self = token
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// One committed transaction of a store's history: who committed it, when,
/// and what it changed (Core Data's `NSPersistentHistoryTransaction`).
///
/// ```swift
/// for transaction in try stack.fetchHistory(after: lastToken) {
///     print(transaction.author ?? "-", transaction.changes.count)
///     lastToken = transaction.token
/// }
/// ```
public struct HistoryTransaction: Sendable, Equatable, Identifiable {
    /// Where it stands in the store's history.
    public let token: HistoryToken
    /// When it committed (the committing process's clock).
    public let date: Date
    /// The ``RecordContext/transactionAuthor`` of the context that saved, or
    /// `nil`. A migration step's transactions are by `"literecord.migration"`.
    public let author: String?
    /// The ``RecordContext/name`` of the context that saved, or `nil`; a
    /// migration step's name is `"migration step <name>"`.
    public let contextName: String?
    /// Its net changes, one per record: a record inserted and deleted in the
    /// same transaction is not listed, one inserted and then updated is an insert.
    public let changes: [HistoryChange]

    public var id: HistoryToken { token }

    /// The changes as a ``ChangeSet``, the form a context merges.
    public var changeSet: ChangeSet {
        var set = ChangeSet()
        for change in changes {
            switch change.kind {
            case .insert: set.inserted.append(change.recordID)
            case .update: set.updated.append(change.recordID)
            case .delete: set.deleted.append(change.recordID)
            }
        }
        return set
    }
}

/// One record's change in a ``HistoryTransaction`` (Core Data's `NSPersistentHistoryChange`).
public struct HistoryChange: Sendable, Equatable {
    /// What happened to the record.
    public enum Kind: String, Sendable, Codable, Equatable {
        /// The record was inserted.
        case insert
        /// Attributes or relationships of the record were written
        /// (``HistoryChange/updatedAttributes`` names them).
        case update
        /// The record was deleted (``HistoryChange/tombstone`` keeps what
        /// was preserved of it).
        case delete
    }

    /// The record changed.
    public let recordID: RecordID
    /// What happened to the record: inserted, updated or deleted.
    public let kind: Kind
    /// For an update: the attributes and to-one and to-many relationships it
    /// wrote, by name, sorted; empty for inserts and deletes.
    public let updatedAttributes: [String]
    /// For a delete: the stored values, at the moment of deletion, of the
    /// attributes declared `@Attribute(.preserveValueOnDeletion)`, by name;
    /// empty otherwise. Values are as SQLite stores them (a `Date` is a
    /// `.real` of seconds since 1970, a `Bool` an `.integer`).
    public let tombstone: [String: SQLValue]

    /// The entity's name, as in ``recordID``.
    public var entityName: String { recordID.entityName }
}

/// Which transactions and changes ``RecordStack/fetchHistory(after:matching:limit:)``
/// returns. Filters combine with ``and(_:)``; ``all`` keeps everything.
///
/// ```swift
/// let theirs = try stack.fetchHistory(after: token, matching: .notAuthor("app").and(.entity(Note.self)))
/// ```
public struct HistoryFilter: Sendable {
    var authors: Set<String>?
    var excludedAuthors: Set<String> = []
    var entityNames: Set<String>?
    var from: Date?
    var until: Date?

    /// Every transaction and change.
    public static let all = HistoryFilter()

    /// Transactions by this author.
    public static func author(_ author: String) -> HistoryFilter {
        var filter = HistoryFilter()
        filter.authors = [author]
        return filter
    }

    /// Transactions by any author but this one (those without an author included):
    /// what another process changed, leaving out your own saves.
    public static func notAuthor(_ author: String) -> HistoryFilter {
        var filter = HistoryFilter()
        filter.excludedAuthors = [author]
        return filter
    }

    /// Only the changes of these entities; transactions left without a change are skipped.
    public static func entities(_ types: [any Entity.Type]) -> HistoryFilter {
        var filter = HistoryFilter()
        filter.entityNames = Set(types.map { $0.entityName })
        return filter
    }

    /// Only the changes of this entity.
    public static func entity(_ type: any Entity.Type) -> HistoryFilter { entities([type]) }

    /// Transactions committed at or after `start` and before `end` (either may be `nil`).
    public static func committed(from start: Date? = nil, before end: Date? = nil) -> HistoryFilter {
        var filter = HistoryFilter()
        filter.from = start
        filter.until = end
        return filter
    }

    /// What both filters keep.
    public func and(_ other: HistoryFilter) -> HistoryFilter {
        var result = self
        if let authors = other.authors { result.authors = result.authors.map { $0.intersection(authors) } ?? authors }
        result.excludedAuthors.formUnion(other.excludedAuthors)
        if let names = other.entityNames { result.entityNames = result.entityNames.map { $0.intersection(names) } ?? names }
        if let from = other.from { result.from = max(result.from ?? from, from) }
        if let until = other.until { result.until = min(result.until ?? until, until) }
        return result
    }

    func keeps(author: String?) -> Bool {
        if let authors, !(author.map(authors.contains) ?? false) { return false }
        if let author, excludedAuthors.contains(author) { return false }
        return true
    }
}
