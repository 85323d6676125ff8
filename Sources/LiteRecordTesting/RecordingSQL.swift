public import LiteRecord

/// Runs `body` and returns the SQL statements it ran on the default stack (or
/// on `stack`), without bound values — for assertions such as "saving an
/// unchanged object runs nothing".
///
/// ```swift
/// let statements = try recordingSQL { try person.save() }.statements
/// #expect(statements.isEmpty)
/// ```
///
/// - Throws: `.notSetUp` when there is no default stack, or what `body` throws.
public func recordingSQL<T>(on stack: RecordStack? = nil, _ body: () throws -> T) throws -> (result: T, statements: [String]) {
    let target = try stack ?? RecordStack.current()
    return try target.recordingSQL(body)
}

/// The async form of ``recordingSQL(on:_:)``.
///
/// - Throws: `.notSetUp` when there is no default stack, or what `body` throws.
public func recordingSQL<T>(
    on stack: RecordStack? = nil, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
) async throws -> (result: T, statements: [String]) {
    let target = try stack ?? RecordStack.current()
    return try await target.recordingSQL(isolation: isolation, body)
}
