import Foundation
import LiteRecord
import Testing

/// Version 2 of `HandWrittenPerson`'s entity: `email` removed, `nick` added.
/// Opening a version-1 store with it must be refused as a model mismatch.
final class HandWrittenPersonV2: Entity {
    var recordState = RecordState()
    var identifier = UUID()
    var name = ""
    var age = 0
    var nick: String?

    static let entityName = "Person"
    static let attributes: [AttributeDescription] = [
        AttributeDescription("identifier", type: .uuid, options: [.unique]),
        AttributeDescription("name", type: .string, options: [.indexed]),
        AttributeDescription("age", type: .int),
        AttributeDescription("nick", type: .string, isOptional: true),
    ]

    init(row: Row) throws {
        identifier = try row.decode(UUID.self, at: 0)
        name = try row.decode(String.self, at: 1)
        age = try row.decode(Int.self, at: 2)
        nick = try row.decodeOptional(String.self, at: 3)
    }

    func encodeAttribute(at index: Int) throws -> SQLValue {
        switch index {
        case 0: try AttributeCoding.encode(identifier)
        case 1: try AttributeCoding.encode(name)
        case 2: try AttributeCoding.encode(age)
        default: try AttributeCoding.encodeOptional(nick)
        }
    }

    func decodeAttribute(at index: Int, from row: Row) throws {
        switch index {
        case 0: identifier = try row.decode(UUID.self, at: 0)
        case 1: name = try row.decode(String.self, at: 1)
        case 2: age = try row.decode(Int.self, at: 2)
        default: nick = try row.decodeOptional(String.self, at: 3)
        }
    }
}

/// A second, tiny hand-written entity for multi-entity models.
final class HandWrittenNote: Entity, DefaultInitializable {
    var recordState = RecordState()
    var text = ""
    var payload = Data()

    static let attributes: [AttributeDescription] = [
        AttributeDescription("text", type: .string),
        AttributeDescription("payload", type: .data),
    ]

    init() {}
    init(text: String, payload: Data = Data()) {
        self.text = text
        self.payload = payload
    }

    init(row: Row) throws {
        text = try row.decode(String.self, at: 0)
        payload = try row.decode(Data.self, at: 1)
    }

    func encodeAttribute(at index: Int) throws -> SQLValue {
        index == 0 ? try AttributeCoding.encode(text) : try AttributeCoding.encode(payload)
    }

    func decodeAttribute(at index: Int, from row: Row) throws {
        if index == 0 { text = try row.decode(String.self, at: 0) } else { payload = try row.decode(Data.self, at: 1) }
    }
}

/// Expects `body` to throw a `LiteRecordError` of `kind` and returns it.
@discardableResult
func expectError<T>(
    _ kind: LiteRecordError.Kind, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T
) -> LiteRecordError? {
    do {
        _ = try body()
        Issue.record("expected LiteRecordError.\(kind), nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as LiteRecordError {
        if error.kind != kind {
            Issue.record("expected LiteRecordError.\(kind), got \(error)", sourceLocation: sourceLocation)
        }
        return error
    } catch {
        Issue.record("expected LiteRecordError.\(kind), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
