import BenchSQLite
import Foundation

/// What one child process measures.
enum Workload: String, CaseIterable, Sendable {
    case insert
    /// `insert` with the objects built from the dataset inside the timed part.
    case insertBuilt = "insert-built"
    case fetch, query, update, delete, enumerate, open
    /// 4 reader tasks running the query workload beside 1 writer inserting
    /// batches of 100, for `ConcurrentRun.duration`.
    case concurrent
    /// Heap bytes per fetched object, by category (one untimed run), the
    /// objects fetched in an observable context (as the main context is).
    case memory
    /// `memory` in a context that is not observable (`stack.newContext()`,
    /// as code off the main actor makes one), every property read after the fetch.
    case memoryPlain = "memory-plain"
    /// `memory-plain` for an entity of the shape apps write: its `uuid` a
    /// `String` (a real UUID's text), a third of the emails `nil`.
    case memoryUser = "memory-user"
    /// Open a 1,000,000-row store of a 10-entity model and answer the first
    /// `findFirst(matching:)`, in a fresh process (`Engines/Launch.swift`).
    case launch
    /// The relationship workloads: 10,000 authors × 10 books.
    case relFetch = "rel-fetch", relWalk = "rel-walk", relCascade = "rel-cascade"

    static let relationships: [Workload] = [.relFetch, .relWalk, .relCascade]

    var isRelationship: Bool { Self.relationships.contains(self) }

    /// The workloads the scaling section repeats at other sizes.
    static let scaling: [Workload] = [.insert, .fetch, .update, .delete]

    var summary: String {
        switch self {
        case .insert: "insert N rows in one transaction / save"
        case .insertBuilt: "`insert` with the objects built from the dataset inside the timed part"
        case .concurrent: "4 reader tasks loop the query workload while 1 writer inserts batches of 100 rows, for \(Int(ConcurrentRun.duration.asSeconds)) s"
        case .memory: "heap bytes per object of a fetch of all N rows, by category (one untimed run), observable context"
        case .memoryPlain: "`memory` in a context that is not observable"
        case .memoryUser: "`memory-plain` for the entity shape apps write: `uuid: String`, a third of the emails `nil`"
        case .fetch: "fetch all N rows into values or objects"
        case .query: "200 × `age BETWEEN x AND x+2 ORDER BY name LIMIT 100`"
        case .update: "set `score` on every fetched object, one save"
        case .delete: "delete every fetched object, one save"
        case .enumerate: "stream 1,000,000 rows (peak RSS is the point)"
        case .open: "open an existing 10-entity store, first read"
        case .launch: "open a 1,000,000-row store of 10 entities (indexes, a relationship, a searchable attribute), first `findFirst(matching:)`"
        case .relFetch: "fetch all 100,000 books with their authors (prefetched / joined)"
        case .relWalk: "fetch the 10,000 authors and walk every author's `books`"
        case .relCascade: "delete the authors born in an even year (about half) and, by cascade, their books; one save"
        }
    }

    /// Which prepared store the run starts from.
    var template: TemplateKind {
        switch self {
        case .insert, .insertBuilt: .empty
        case .fetch, .query, .update, .delete, .concurrent, .memory, .memoryPlain: .items
        case .memoryUser: .userItems
        case .enumerate: .manyItems
        case .open: .model
        case .launch: .launch
        case .relFetch, .relWalk, .relCascade: .library
        }
    }

    /// Write workloads are checked by reading the file afterwards.
    var verifiesStore: Bool {
        self == .insert || self == .insertBuilt || self == .update || self == .delete || self == .relCascade
    }

    /// Workloads measured once, without a warm-up: their figures are counts,
    /// not times.
    var isSingleRun: Bool { isMemory }

    /// The untimed memory workloads, whose engines conform to `MemoryEngine`.
    var isMemory: Bool { self == .memory || self == .memoryPlain || self == .memoryUser }

    /// Whether "× best low-level" means anything: not for the fixed-duration
    /// `concurrent` run nor the untimed `memory` one.
    var hasTimeRatio: Bool { self != .concurrent && !isSingleRun }
}

enum TemplateKind: String, CaseIterable, Sendable {
    case empty, items, manyItems, model
    /// The items of `memory-user`: the same columns, a third of the emails
    /// `nil` (`Dataset.userRow`), in LiteRecord's store its `UserItem` table.
    case userItems
    /// The launch workload's store (`LaunchQuery.makeTemplate`).
    case launch
    /// Authors and their books (the relationship workloads).
    case library
}

/// Times the part of a run that counts; everything else (opening the store,
/// fetching the objects an update needs, computing checksums) stays outside.
final class Stopwatch {
    private var startedAt: ContinuousClock.Instant?
    private(set) var elapsed: Duration = .zero

    func start() {
        bench_profile_toggle()
        startedAt = .now
    }

    func stop() {
        if let startedAt { elapsed += ContinuousClock.now - startedAt }
        startedAt = nil
        bench_profile_toggle()
    }

    var milliseconds: Double { elapsed.asMilliseconds }
}

/// The parameters of one measured run.
struct RunContext {
    let store: String
    /// Rows in the store (or to insert).
    let count: Int
    let stopwatch: Stopwatch
    /// Statements run by the workload, where the engine counts them.
    let statements: StatementCounter
}

/// One engine under test. Each workload method prepares what it needs from
/// the store at `context.store`, times only the workload with
/// `context.stopwatch`, and returns a checksum of what it read (write
/// workloads return nothing; the harness reads the file back instead).
///
/// Engines are synchronous (`SynchronousEngine`) unless their API is async
/// (`AsynchronousEngine`, Fluent): a synchronous child never starts the Swift
/// concurrency runtime, which valgrind 3.19 cannot run, so those children can
/// be profiled with callgrind.
protocol BenchmarkEngine: Sendable {
    var name: String { get }
    var itemTable: ItemTable { get }
    /// Engines of one family start from the same template files.
    var templateFamily: String { get }
    /// The author and book tables of the relationship workloads.
    var libraryTables: LibraryTables { get }
    /// Whether the engine runs `workload` (only some run the relationship ones).
    func supports(_ workload: Workload) -> Bool
    /// Runs the workload on N / this many rows: 1 except where an engine is
    /// too slow for the time budget of `make bench` (see `FluentEngine`).
    func rowDivisor(for workload: Workload) -> Int

    /// Creates the store a workload starts from (only LiteRecord needs its own;
    /// the others share templates written with the C API).
    func makeTemplate(_ kind: TemplateKind, at path: String, count: Int) throws
}

protocol SynchronousEngine: BenchmarkEngine {
    func insert(_ rows: [ItemValues], _ context: RunContext) throws
    func fetch(_ context: RunContext) throws -> Checksum
    func query(_ lowerBounds: [Int], _ context: RunContext) throws -> Checksum
    func update(_ context: RunContext) throws
    func delete(_ context: RunContext) throws
    func enumerate(_ context: RunContext) throws -> Checksum
    /// Returns the row count of `e0` as the checksum's count.
    func open(_ context: RunContext) throws -> Checksum
}

/// An engine that runs `insert-built`: it builds its values or objects from
/// `rows` inside the timed part, as its user's code would.
protocol BuildingInsertEngine: SynchronousEngine {
    func insertBuilt(_ rows: [ItemValues], _ context: RunContext) throws
}

/// An engine that runs `concurrent` (see `ConcurrentRun`).
protocol ConcurrentEngine: SynchronousEngine {
    func concurrent(_ run: ConcurrentRun, _ context: RunContext) throws -> ConcurrentOutcome
}

/// An engine that runs `memory`, `memory-plain` and `memory-user`: fetches
/// all rows as `fetch` does and reports heap bytes per object by category
/// (`Metric` keys).
protocol MemoryEngine: SynchronousEngine {
    /// `workload` says which: LiteRecord's context is observable for
    /// `memory` only, and `memory-user` reads its `UserItem` entity; raw C
    /// reads its structs from the template either way.
    func memory(_ context: RunContext, _ workload: Workload) throws -> (Checksum, [String: Double])
}

protocol AsynchronousEngine: BenchmarkEngine {
    func insert(_ rows: [ItemValues], _ context: RunContext) async throws
    func fetch(_ context: RunContext) async throws -> Checksum
    func query(_ lowerBounds: [Int], _ context: RunContext) async throws -> Checksum
    func update(_ context: RunContext) async throws
    func delete(_ context: RunContext) async throws
    func enumerate(_ context: RunContext) async throws -> Checksum
    func open(_ context: RunContext) async throws -> Checksum
}

/// An engine that runs the relationship workloads; `context.count` is the
/// number of authors.
protocol RelationshipEngine: SynchronousEngine {
    /// Every book with its author.
    func fetchBooksWithAuthors(_ context: RunContext) throws -> Checksum
    /// Every author, then every author's books.
    func walkAuthorsBooks(_ context: RunContext) throws -> Checksum
    /// Deletes the authors `Library.isDoomed` picks, and their books.
    func cascadeDelete(_ context: RunContext) throws
}

extension BenchmarkEngine {
    func rowDivisor(for workload: Workload) -> Int { 1 }
    var libraryTables: LibraryTables { .shared }
    func supports(_ workload: Workload) -> Bool { supportsByKind(workload) }

    /// Whether the engine runs `workload`, by the protocols it conforms to.
    func supportsByKind(_ workload: Workload) -> Bool {
        switch workload {
        case .insertBuilt: self is any BuildingInsertEngine
        case .concurrent: self is any ConcurrentEngine
        case .memory, .memoryPlain, .memoryUser: self is any MemoryEngine
        case .launch: self is any LaunchEngine
        default: !workload.isRelationship || self is any RelationshipEngine
        }
    }
}

enum Engines {
    static let all: [any BenchmarkEngine] = [
        RawCEngine(), GRDBRowsEngine(), GRDBRecordsEngine(), FluentEngine(), LiteRecordEngine(),
        LiteRecordEngine(mapsReads: true),
    ]

    /// The engines whose faster median is the baseline of every ratio.
    static let baselineNames = ["raw-c", "grdb-rows"]

    /// The engines of the scaling section.
    static let scalingNames = ["raw-c", "literecord"]

    static func named(_ name: String) -> (any BenchmarkEngine)? {
        all.first { $0.name == name }
    }
}
