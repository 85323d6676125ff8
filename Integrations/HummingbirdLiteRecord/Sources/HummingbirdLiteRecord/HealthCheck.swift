import Foundation
public import Hummingbird
public import LiteRecord

/// A readiness route, `GET /health`, that reads the stack: 200 with a small
/// JSON object when the stack is open and `read` succeeds, 503 (problem
/// details, type ``ProblemDetails/StoreProblem/storeUnavailable``) when it
/// is closed or the read fails. The object holds what `read` returned (its
/// keys, when it encodes as an object; else under `"details"`), `"status":"ok"`
/// and, on a read replica, `"replica"`: the newest commit of the primary it
/// reads (`txid`, `commitTime`), the seconds since it last polled its storage
/// (`sinceLastPoll`, `null` before the first) and `stale`, why it stopped
/// following its primary (`null` while it follows).
///
/// ```swift
/// let health = HealthCheck(stack: stack) { context in ["todos": try Todo.count(in: context)] }
/// router.get("/health") { request, context in try await health.response(from: request, context: context) }
/// // {"status":"ok","todos":3}
/// ```
///
/// A stale replica answers 200 (its reads work, on an older commit) unless
/// `staleReplicaIsUnavailable`.
public struct HealthCheck<Details: Encodable & Sendable>: Sendable {
    /// The stack the check reads.
    public let stack: RecordStack
    /// Whether a read replica that stopped following its primary answers 503.
    public var staleReplicaIsUnavailable: Bool
    let read: @Sendable (RecordContext) throws -> Details

    /// A check that runs `read` (keep it to one small query) on each request.
    ///
    /// ```swift
    /// let health = HealthCheck(stack: replica, staleReplicaIsUnavailable: true) { _ in [String: Int]() }
    /// ```
    public init(stack: RecordStack, staleReplicaIsUnavailable: Bool = false,
                read: @escaping @Sendable (RecordContext) throws -> Details) {
        self.stack = stack
        self.staleReplicaIsUnavailable = staleReplicaIsUnavailable
        self.read = read
    }

    /// The JSON object of a ready stack.
    ///
    /// ```swift
    /// let body = try await health.report()   // {"status":"ok","todos":3}
    /// ```
    ///
    /// - Throws: ``ProblemDetails`` 503 (with `Retry-After: 5`) when the
    ///   stack is closed, `read` fails, or — with
    ///   ``staleReplicaIsUnavailable`` — the replica is stale.
    public func report() async throws -> String {
        guard stack.isOpen else { throw Self.unavailable("the store is closed") }
        let details: Details
        do {
            details = try await stack.read(read)
        } catch {
            throw Self.unavailable("the store cannot be read")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var fields: [String] = []
        let detailsJSON = String(decoding: try encoder.encode(details), as: UTF8.self)
        let object = (try? JSONSerialization.jsonObject(with: Data(detailsJSON.utf8), options: [.fragmentsAllowed])) as? [String: Any]
        if let object, object["status"] == nil, object["replica"] == nil {
            // An object's fields are the answer's (sorted, before "replica").
            let inner = detailsJSON.dropFirst().dropLast()
            if !inner.isEmpty { fields.append(String(inner)) }
        } else {
            fields.append("\"details\":\(detailsJSON)")
        }
        if stack.isReplica {
            let position = await stack.replicaPositionOffThePool()
            if staleReplicaIsUnavailable, let reason = position.staleReason {
                throw Self.unavailable("the replica stopped following its primary: \(reason)")
            }
            let replica = ReplicaHealth(
                commitTime: position.commitTime.map { $0.formatted(Self.commitTimeStyle) },
                sinceLastPoll: position.sinceLastPoll.map { $0.components.seconds },
                stale: position.staleReason, txid: position.txid)
            fields.append("\"replica\":" + String(decoding: try encoder.encode(replica), as: UTF8.self))
        }
        fields.append("\"status\":\"ok\"")
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// The answer: 200 with ``report()``'s object, `application/json`.
    ///
    /// ```swift
    /// router.get("/health") { request, context in try await health.response(from: request, context: context) }
    /// ```
    ///
    /// - Throws: ``report()``'s 503.
    public func response(from request: Request, context: some RequestContext) async throws -> Response {
        let body: String
        do {
            body = try await report()
        } catch let problem as ProblemDetails {
            context.logger.error("health check failed: \(problem.detail)")
            throw problem
        }
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// A replica's commit time: RFC 3339 in UTC, with milliseconds
    /// (`2026-11-26T10:00:01.250Z`).
    static var commitTimeStyle: Date.ISO8601FormatStyle { Date.ISO8601FormatStyle(includingFractionalSeconds: true) }

    static func unavailable(_ detail: String) -> ProblemDetails {
        ProblemDetails(.serviceUnavailable, type: ProblemDetails.StoreProblem.storeUnavailable, detail: detail,
                       headers: [.retryAfter: "5"])
    }
}

/// `"replica"` in a health answer; every key present, `null` included.
struct ReplicaHealth: Encodable {
    var commitTime: String?
    var sinceLastPoll: Int64?
    var stale: String?
    var txid: UInt64

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(commitTime, forKey: .commitTime)
        try container.encode(sinceLastPoll, forKey: .sinceLastPoll)
        try container.encode(stale, forKey: .stale)
        try container.encode(txid, forKey: .txid)
    }

    enum CodingKeys: String, CodingKey { case commitTime, sinceLastPoll, stale, txid }
}
