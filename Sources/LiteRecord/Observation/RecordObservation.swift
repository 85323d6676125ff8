import Foundation
import Synchronization

/// The results of a fetch request, again after every commit that changes them:
/// what ``RecordContext/observe(_:)`` returns.
///
/// ```swift
/// for await people in RecordStack.mainContext.observe(FetchRequest<Person>(sortBy: [SortDescriptor(\.name)])) {
///     render(people)
/// }
/// ```
///
/// - The first element is the current results, fetched when iteration starts.
/// - Then a new element follows each commit that changes the results: a save
///   or `write` of this process, through any context or any stack of the same
///   store file, at once; another process's commit within
///   ``crossProcessInterval``. Commits that touch none of the entities the
///   request reads (its own, and those its predicate, sort and prefetching
///   reach) cause no fetch at all; a burst of commits that arrives while the
///   results are being fetched causes one more fetch, not one per commit.
/// - Results identical to the last ones sent (the same objects in the same
///   order, with the same stored values and to-one targets) are not sent again.
/// - The objects belong to the observing context, and the sequence is
///   iterated in that context's isolation (the main actor for the main
///   context).
/// - It ends (the `for await` loop exits) when the task iterating it is
///   cancelled, when the loop is left, and when the stack closes
///   (`RecordStack.cleanUp()`, `stack.close()`). A fetch that fails (a
///   predicate that cannot be translated, an I/O error) ends it too: the
///   error is logged and kept in ``error``.
public struct RecordObservation<T: Entity>: AsyncSequence {
    /// Every element is the request's complete results, in its order.
    public typealias Element = [T]
    /// Iteration never throws; see ``error`` for why it ended early.
    public typealias Failure = Never

    let context: RecordContext
    let request: FetchRequest<T>
    let status = ObservationStatus()

    /// How soon at most a commit by another process is seen: the store checks
    /// `PRAGMA data_version` this often while anything is observed (0.25 s).
    public static var crossProcessInterval: Duration { ObservationCenter.pollInterval }

    /// Why the sequence ended early: the error of the fetch that failed;
    /// `nil` while it runs and when it ended by cancellation or closing.
    ///
    /// ```swift
    /// let people = context.observe(request)
    /// for await list in people { render(list) }
    /// if let error = people.error { print(error) }
    /// ```
    public var error: LiteRecordError? { status.error }

    /// Starts an iteration: it subscribes to the store's commits and fetches
    /// on its first `next()`.
    public func makeAsyncIterator() -> Iterator {
        Iterator(context: context, request: request, status: status)
    }

    /// Iterates a ``RecordObservation``: each `next()` waits for a commit that
    /// changes the results and returns them.
    public struct Iterator: AsyncIteratorProtocol {
        let context: RecordContext
        let request: FetchRequest<T>
        let status: ObservationStatus
        private var triggers: AsyncStream<Void>.Iterator?
        private var last: ResultSnapshot?
        private var ended = false

        init(context: RecordContext, request: FetchRequest<T>, status: ObservationStatus) {
            self.context = context
            self.request = request
            self.status = status
        }

        /// The next results, in the caller's isolation; `nil` when the
        /// observation has ended.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> [T]? {
            guard !ended, !Task.isCancelled else { return end() }
            guard var waiting = triggers else { return start() }
            while true {
                let woken: Void? = await waiting.next(isolation: actor)
                guard woken != nil, !Task.isCancelled else { return end() }
                switch evaluate() {
                case .changed(let results):
                    triggers = waiting
                    return results
                case .same:
                    continue
                case .ended:
                    return end()
                }
            }
        }

        /// The next results, in the caller's isolation (`for await` calls
        /// ``next(isolation:)``).
        public nonisolated(nonsending) mutating func next() async -> [T]? {
            await next(isolation: #isolation)
        }

        private mutating func start() -> [T]? {
            let store = context.store
            // The facade's placeholder before setup: say that, not what the
            // empty model makes of the request.
            if let error = store.unavailableError { return fail(error) }
            let entities: Set<String>
            do {
                entities = try observedEntities()
            } catch {
                return fail(error)
            }
            guard
                let stream = store.observations.subscribe(
                    entities: entities, dataVersion: { [weak store] wait in store?.dataVersion(wait: wait) })
            else { return end() }
            triggers = stream.makeAsyncIterator()
            switch evaluate(force: true) {
            case .changed(let results): return results
            case .same, .ended: return end()
            }
        }

        private enum Evaluation {
            case changed([T])
            case same
            case ended
        }

        private mutating func evaluate(force: Bool = false) -> Evaluation {
            let results: [T]
            do {
                results = try context.fetch(request)
            } catch {
                _ = fail(error)
                return .ended
            }
            status.countEvaluation()
            let snapshot = ResultSnapshot(results, context: context)
            if !force, snapshot == last { return .same }
            last = snapshot
            return .changed(results)
        }

        /// Ends the observation, releasing its subscription.
        private mutating func end() -> [T]? {
            ended = true
            triggers = nil
            last = nil
            return nil
        }

        /// Ends the observation after a failed fetch; closing the store while
        /// observing is a clean end, not a failure — also when the fetch
        /// meets the reader pool closed and the writer not yet.
        private mutating func fail(_ error: any Error) -> [T]? {
            let failure =
                (error as? LiteRecordError)
                ?? LiteRecordError(.sqlite, "observing \(T.entityName) failed: \(error)")
            if failure.kind != .storeUnavailable || !context.store.isClosingOrClosed {
                status.fail(failure)
                context.store.logger.error(
                    "an observed fetch failed; the observation ended", metadata: ["error": "\(failure)"])
            }
            return end()
        }

        /// The entities whose commits may change the results: the request's
        /// own, every entity (or join table's ends) its SQL names, and the
        /// destinations it prefetches.
        private func observedEntities() throws -> Set<String> {
            let entity = try context.entity(for: T.self)
            var names: Set<String> = [entity.name]
            let query = try request.sqlQuery(model: context.model)
            let sql = [query.whereSQL, query.orderBy].compactMap { $0 }.joined(separator: " ")
            if !sql.isEmpty {
                for other in context.model.entities {
                    if sql.contains(SQLIdentifier.quote(other.name)) { names.insert(other.name) }
                    for relationship in other.relationships {
                        if case .joinTable(let table) = relationship.storage, sql.contains(SQLIdentifier.quote(table.name)) {
                            names.formUnion([relationship.entityName, relationship.destinationName])
                        }
                    }
                }
            }
            for keyPath in request.relationshipKeyPathsForPrefetching {
                if let index = T.relationshipIndex(for: keyPath), entity.relationships.indices.contains(index) {
                    names.insert(entity.relationships[index].destinationName)
                }
            }
            return names
        }
    }
}

/// What an observation shares with its iterators: how often it fetched (for
/// tests, from any task) and the error that ended it.
final class ObservationStatus: Sendable {
    private let state = Locked<(evaluations: Int, error: LiteRecordError?)>((0, nil))

    /// How many times the request was fetched.
    var evaluations: Int { state.withLock { $0.evaluations } }
    var error: LiteRecordError? { state.withLock { $0.error } }

    func countEvaluation() { state.withLock { $0.evaluations += 1 } }
    func fail(_ error: LiteRecordError) { state.withLock { $0.error = error } }
}

/// The results as last sent: which objects, in which order, with which stored
/// values and to-one targets. Equal snapshots mean nothing to send.
struct ResultSnapshot: Equatable {
    private var objects: [ObjectIdentifier] = []
    private var values: [SQLValue] = []

    init<T: Entity>(_ results: [T], context: RecordContext) {
        objects = results.map { ObjectIdentifier($0) }
        let attributeCount = T.attributes.count
        let toOnes = context.model.entity(for: T.self)?.toOneIndexes ?? []
        values.reserveCapacity(results.count * (attributeCount + toOnes.count))
        for object in results {
            for index in 0..<attributeCount {
                // A value that cannot be encoded counts as different every time.
                values.append((try? object.encodeAttribute(at: index)) ?? .text(UUID().uuidString))
            }
            for index in toOnes { values.append(Self.target(of: object, index)) }
        }
    }

    /// The row id a to-one points at, as a value.
    private static func target(of object: any Entity, _ index: Int) -> SQLValue {
        switch RelationGraph.slot(object, index) {
        case .fault(let rowID): return rowID.map { .integer($0) } ?? .null
        case .toOne(let related?):
            return related.stateRowID.map { .integer($0) } ?? .text("\(ObjectIdentifier(related))")
        case .toOne(nil), .unloaded, .toMany: return .null
        }
    }
}
