import Foundation

/// The current row of a fetch, seen as the attributes of one entity: index `i`
/// is the entity's attribute `i`.
///
/// A `Row` is only valid during the call it is passed to (``Entity/init(row:)``
/// or ``Entity/decodeAttribute(at:from:)``); it must not be stored.
public struct Row {
    /// The columns of the statement positioned on the row, when the row comes
    /// from a fetch. Only the statement's handle: a row lives only during the
    /// call it is passed to, while its statement is held by the code that
    /// stepped it, and column reads do no reference counting.
    let statement: ColumnReader?
    /// The values, when the row was built in memory (copying between contexts).
    let values: [SQLValue]
    /// The statement column of attribute 0.
    let offset: Int32
    /// The entity being read, for error messages.
    let entityName: String
    /// Attribute names, for error messages about in-memory rows.
    let attributeNames: [String]

    init(statement: Statement, offset: Int32, entityName: String) {
        self.statement = statement.columns
        self.values = []
        self.offset = offset
        self.entityName = entityName
        self.attributeNames = []
    }

    /// A row of in-memory values, index `i` being attribute `i` of `entity`.
    init(values: [SQLValue], entity: EntityDescription) {
        self.statement = nil
        self.values = values
        self.offset = 0
        self.entityName = entity.name
        self.attributeNames = entity.attributes.map(\.name)
    }

    /// A row of in-memory values with the attribute names at hand (an import
    /// builds one per object and names them once).
    init(values: [SQLValue], entityName: String, attributeNames: [String]) {
        self.statement = nil
        self.values = values
        self.offset = 0
        self.entityName = entityName
        self.attributeNames = attributeNames
    }

    @inline(__always)
    func column(_ index: Int) -> Int32 { offset + Int32(truncatingIfNeeded: index) }

    /// Whether the attribute at `index` is `NULL` in the store.
    public func isNull(at index: Int) -> Bool {
        guard let statement else { return values.indices.contains(index) ? values[index].isNull : true }
        return statement.isNull(at: column(index))
    }

    /// The stored value of the attribute at `index`.
    public func value(at index: Int) -> SQLValue {
        guard let statement else { return values.indices.contains(index) ? values[index] : .null }
        return statement.value(at: column(index))
    }

    /// The name of the column at attribute `index`, for error messages.
    func columnName(_ index: Int) -> String {
        guard let statement else { return attributeNames.indices.contains(index) ? attributeNames[index] : "#\(index)" }
        return statement.columnName(at: column(index))
    }

    func nullError(at index: Int, expected: String) -> LiteRecordError {
        LiteRecordError(
            .decodingFailed,
            "\(entityName).\(columnName(index)) is NULL in the store, but the property is a non-optional \(expected)")
    }

    // MARK: Decoding

    /// Decodes a non-optional attribute.
    ///
    /// - Throws: ``LiteRecordError`` of kind `.decodingFailed` when the column is
    ///   `NULL` or its value does not fit `type`.
    @inlinable
    public func decode<T: AttributeValue>(_ type: T.Type = T.self, at index: Int) throws -> T {
        try T.read(from: self, at: index)
    }

    /// Decodes an optional attribute: `nil` for `NULL`.
    @inlinable
    public func decodeOptional<T: AttributeValue>(_ type: T.Type = T.self, at index: Int) throws -> T? {
        isNull(at: index) ? nil : try T.read(from: self, at: index)
    }

    /// Decodes a `RawRepresentable` attribute stored as its raw value.
    ///
    /// - Throws: ``LiteRecordError`` of kind `.decodingFailed` when the stored raw
    ///   value matches no case.
    public func decode<T: RawRepresentable>(_ type: T.Type = T.self, at index: Int) throws -> T
    where T.RawValue: AttributeValue {
        try decodeRawValue(T.self, at: index)
    }

    private func decodeRawValue<T: RawRepresentable>(_ type: T.Type, at index: Int) throws -> T
    where T.RawValue: AttributeValue {
        let raw = try T.RawValue.read(from: self, at: index)
        guard let value = T(rawValue: raw) else {
            throw LiteRecordError(
                .decodingFailed,
                "\(entityName).\(columnName(index)) holds \(raw), which is not a valid \(T.self) raw value")
        }
        return value
    }

    /// Decodes an optional `RawRepresentable` attribute: `nil` for `NULL`.
    ///
    /// - Throws: ``LiteRecordError`` of kind `.decodingFailed` when the stored raw
    ///   value matches no case.
    public func decodeOptional<T: RawRepresentable>(_ type: T.Type = T.self, at index: Int) throws -> T?
    where T.RawValue: AttributeValue {
        isNull(at: index) ? nil : try decode(T.self, at: index)
    }

    /// Decodes a `Codable` attribute stored as JSON text.
    public func decode<T: Codable>(_ type: T.Type = T.self, at index: Int) throws -> T {
        guard !isNull(at: index) else { throw nullError(at: index, expected: "\(T.self)") }
        let json: Data
        switch value(at: index) {
        case .text(let text): json = Data(text.utf8)
        case .blob(let data): json = data
        case let other: throw LiteRecordError(.decodingFailed, "\(entityName).\(columnName(index)) holds \(other), not JSON text")
        }
        do {
            return try JSONDecoder().decode(T.self, from: json)
        } catch {
            throw LiteRecordError(
                .decodingFailed, "\(entityName).\(columnName(index)) holds JSON that is not a valid \(T.self): \(error)")
        }
    }

    /// Decodes an optional `Codable` attribute stored as JSON text: `nil` for `NULL`.
    ///
    /// - Throws: ``LiteRecordError`` of kind `.decodingFailed` when the column
    ///   does not hold valid JSON for `type`.
    public func decodeOptional<T: Codable>(_ type: T.Type = T.self, at index: Int) throws -> T? {
        isNull(at: index) ? nil : try decode(T.self, at: index)
    }

    // Overloads that settle ambiguity for types that fit more than one family
    // (every built-in value is also Codable; most enums are both).

    /// Decodes a non-optional built-in attribute that is also `Codable` as
    /// itself, not as JSON.
    ///
    /// - Throws: ``LiteRecordError`` of kind `.decodingFailed` when the column is
    ///   `NULL` or its value does not fit `type`.
    @inlinable
    public func decode<T: AttributeValue & Codable>(_ type: T.Type = T.self, at index: Int) throws -> T {
        try T.read(from: self, at: index)
    }

    /// Decodes an optional built-in attribute that is also `Codable`: `nil` for
    /// `NULL`.
    ///
    /// - Throws: ``LiteRecordError`` of kind `.decodingFailed` when the value
    ///   does not fit `type`.
    @inlinable
    public func decodeOptional<T: AttributeValue & Codable>(_ type: T.Type = T.self, at index: Int) throws -> T? {
        isNull(at: index) ? nil : try T.read(from: self, at: index)
    }

    /// Decodes a `Codable` `RawRepresentable` attribute stored as its raw value,
    /// not as JSON.
    ///
    /// - Throws: ``LiteRecordError`` of kind `.decodingFailed` when the column is
    ///   `NULL` or the stored raw value matches no case.
    public func decode<T: RawRepresentable & Codable>(_ type: T.Type = T.self, at index: Int) throws -> T
    where T.RawValue: AttributeValue {
        try decodeRawValue(T.self, at: index)
    }

    /// Decodes an optional `Codable` `RawRepresentable` attribute stored as its
    /// raw value: `nil` for `NULL`.
    ///
    /// - Throws: ``LiteRecordError`` of kind `.decodingFailed` when the stored
    ///   raw value matches no case.
    public func decodeOptional<T: RawRepresentable & Codable>(_ type: T.Type = T.self, at index: Int) throws -> T?
    where T.RawValue: AttributeValue {
        isNull(at: index) ? nil : try decode(T.self, at: index)
    }
}
