import HTTPTypes
public import Hummingbird
public import LiteRecord

/// Finds the tenant a request is for, and hands a route that tenant's stack
/// (``LiteRecord/RecordStacks``) for the request's duration: one store per
/// customer, chosen per request.
///
/// ```swift
/// let tenants = try RecordStacks(directory: tenantsFolder, entities: [Note.self])
/// let resolution = TenantResolution(tenants, from: .header("X-Tenant"))
/// router.get("/notes") { request, context in
///     try await resolution.withStack(for: request) { stack in
///         try await stack.read { db in try Note.findAll(in: db).map(NoteView.init) }
///     }
/// }
/// ```
///
/// The answers it gives for a request it cannot serve:
/// - the tenant is not named (no header, or a host without a first label
///   before a dot): **400**;
/// - the name is not a tenant name (`../etc`, over 64 characters, …):
///   **400**, and nothing is touched;
/// - no such tenant: **404** (only ``LiteRecord/RecordStacks/create(_:)``
///   makes one, never a request).
public struct TenantResolution: Sendable {
    /// Where a request names its tenant.
    public enum Source: Sendable {
        /// A header, by its name: `.header("X-Tenant")` reads `X-Tenant: acme`.
        case header(String)
        /// The first label of the request's host (`Host`, or HTTP/2's
        /// `:authority`): `acme.notes.example` is the
        /// tenant `acme` (a port is ignored; a host with no dot names none).
        case firstHostLabel
    }

    /// The tenants the requests choose among.
    public let tenants: RecordStacks
    /// Where a request names its tenant.
    public let source: Source

    /// A resolution choosing among `tenants` by `source`.
    public init(_ tenants: RecordStacks, from source: Source) {
        self.tenants = tenants
        self.source = source
    }

    /// The tenant name the request carries.
    ///
    /// - Throws: `HTTPError` 400 when it carries none.
    public func tenantName(of request: Request) throws -> String {
        switch source {
        case .header(let header):
            guard let field = HTTPField.Name(header), let value = request.headers[field], !value.isEmpty else {
                throw HTTPError(.badRequest, message: "the request names no tenant: send the \(header) header")
            }
            return value
        case .firstHostLabel:
            // The server turns `Host` into the authority; a request built by
            // hand (a router test) carries the header beside a default one.
            let host = HTTPField.Name("Host").flatMap { request.headers[$0] } ?? request.head.authority ?? ""
            let name = host.split(separator: ":").first.map(String.init) ?? ""
            let labels = name.split(separator: ".", omittingEmptySubsequences: false)
            guard labels.count > 1, let first = labels.first, !first.isEmpty else {
                throw HTTPError(.badRequest, message: "the request names no tenant: its host has no first label (acme.example.com)")
            }
            return String(first)
        }
    }

    /// Runs `body` with the stack of the tenant the request names.
    ///
    /// - Returns: what `body` returns.
    /// - Throws: `HTTPError` 400 when the request names no tenant or an
    ///   invalid name, 404 when the tenant does not exist; otherwise what
    ///   ``LiteRecord/RecordStacks/withStack(for:isolation:_:)`` and `body`
    ///   throw (store errors become their statuses in
    ///   ``StoreErrorMiddleware``).
    public func withStack<T>(
        for request: Request, isolation: isolated (any Actor)? = #isolation, _ body: (RecordStack) async throws -> T
    ) async throws -> T {
        let name = try tenantName(of: request)
        let exists: Bool
        do {
            exists = try tenants.exists(name)
        } catch let error as LiteRecordError where error.kind == .validationFailed {
            throw HTTPError(.badRequest, message: error.message)
        }
        guard exists else { throw HTTPError(.notFound, message: "no tenant '\(name)'") }
        return try await tenants.withStack(for: name, body)
    }
}
