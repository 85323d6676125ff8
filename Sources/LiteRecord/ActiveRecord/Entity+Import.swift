public import Foundation

extension Entity {
    /// Imports a JSON array of objects (or a single object) as objects of
    /// this entity: MagicalRecord's `MR_importFromArray`, done right.
    ///
    /// ```swift
    /// let people = try Person.importObjects(from: jsonData, in: context)
    /// try context.save()
    /// ```
    ///
    /// Each JSON object updates the object with the same `.unique` key (in
    /// the context or the store; one `IN` query per batch of keys) or creates
    /// one; a key repeated in the input updates the same object, the last
    /// value winning. Values are found by each attribute's `importKey` and
    /// converted exactly or refused (`Docs/Import.md` lists the rules):
    /// the JSON text is read by LiteRecord's own reader, which keeps every
    /// digit of every number (`JSONSerialization` does not). Nested objects
    /// and bare keys import relationships, in any order. Nothing is saved:
    /// the objects are inserted or changed in `context`.
    ///
    /// - Returns: the objects imported, each once, in the order they first
    ///   appear; elements whose ``Entity/shouldImport(_:)`` returned `false`
    ///   are left out.
    /// - Throws: ``LiteRecordError`` of kind `.validationFailed` for data
    ///   that is not UTF-8 JSON, JSON nested more than 512 levels (objects
    ///   more than 100), or a value of the wrong shape or one its attribute
    ///   cannot hold exactly, naming the element's index and the key path;
    ///   the import is then taken back entirely (what its hooks set on the
    ///   objects included), leaving the context's other unsaved changes as
    ///   they were.
    public static func importObjects(from data: Data, in context: RecordContext) throws -> [Self] {
        try context.store.scopingErrorValues {
            let input = try JSONInput(data, entityName: entityName)
            return try Importer(context: context, rootName: entityName, exactNumbers: input.exactNumbers)
                .run(try input.objects(), as: Self.self)
        }
    }

    /// Imports dictionaries (as `JSONSerialization` produces them, or
    /// literals) as objects of this entity; see `importObjects(from:in:)`.
    /// Numbers are read exactly as the dictionary holds them (an
    /// `NSDecimalNumber` by its digits); a dictionary from
    /// `JSONSerialization` has already lost what it loses, so import the
    /// `Data` itself when every digit matters.
    ///
    /// ```swift
    /// let people = try Person.importObjects(from: [["id": 7, "name": "Ann"], ["id": 8, "name": "Bob"]], in: context)
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.validationFailed` naming the
    ///   element's index and key path (objects nested more than 100 levels
    ///   deep are refused too); nothing of the import is left in `context`.
    public static func importObjects(from array: [[String: Any]], in context: RecordContext) throws -> [Self] {
        try context.store.scopingErrorValues { try Importer(context: context, rootName: entityName).run(array, as: Self.self) }
    }

    /// Imports one JSON object as an object of this entity: MagicalRecord's
    /// `MR_importFromObject`. See `importObjects(from:in:)` for the rules.
    ///
    /// ```swift
    /// let ann = try Person.importObject(from: jsonData, in: context)
    /// ```
    ///
    /// - Returns: the object imported, or `nil` when its
    ///   ``Entity/shouldImport(_:)`` returned `false`.
    /// - Throws: ``LiteRecordError`` of kind `.validationFailed` when the data
    ///   is not one JSON object or a value has the wrong shape; nothing of the
    ///   import is left in `context`.
    @discardableResult
    public static func importObject(from data: Data, in context: RecordContext) throws -> Self? {
        try context.store.scopingErrorValues {
            let input = try JSONInput(data, entityName: entityName)
            return try Importer(context: context, rootName: entityName, exactNumbers: input.exactNumbers)
                .run([try input.object()], as: Self.self).first
        }
    }

    /// Imports one dictionary as an object of this entity; see
    /// `importObjects(from:in:)`.
    ///
    /// ```swift
    /// let ann = try Person.importObject(from: ["id": 7, "name": "Ann"], in: context)
    /// ```
    ///
    /// - Returns: the object imported, or `nil` when its
    ///   ``Entity/shouldImport(_:)`` returned `false`.
    /// - Throws: ``LiteRecordError`` of kind `.validationFailed` naming the key
    ///   path; nothing of the import is left in `context`.
    @discardableResult
    public static func importObject(from dictionary: [String: Any], in context: RecordContext) throws -> Self? {
        try context.store.scopingErrorValues {
            try Importer(context: context, rootName: entityName).run([dictionary], as: Self.self).first
        }
    }

    /// `importObjects(from:in:)` into the default stack's main context.
    ///
    /// ```swift
    /// let people = try Person.importObjects(from: jsonData)
    /// ```
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor public static func importObjects(from data: Data) throws -> [Self] {
        try importObjects(from: data, in: RecordStack.current().mainContext)
    }

    /// `importObjects(from:in:)` into the default stack's main context.
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor public static func importObjects(from array: [[String: Any]]) throws -> [Self] {
        try importObjects(from: array, in: RecordStack.current().mainContext)
    }

    /// `importObject(from:in:)` into the default stack's main context.
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @discardableResult
    @MainActor public static func importObject(from data: Data) throws -> Self? {
        try importObject(from: data, in: RecordStack.current().mainContext)
    }

    /// `importObject(from:in:)` into the default stack's main context.
    ///
    /// ```swift
    /// let ann = try Person.importObject(from: ["id": 7, "name": "Ann"])
    /// ```
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @discardableResult
    @MainActor public static func importObject(from dictionary: [String: Any]) throws -> Self? {
        try importObject(from: dictionary, in: RecordStack.current().mainContext)
    }
}

/// The JSON text an import is given, read by ``ImportJSONReader`` so that
/// no number loses a digit.
struct JSONInput {
    let value: Any
    let exactNumbers: [ObjectIdentifier: ImportNumber]
    let entityName: String

    init(_ data: Data, entityName: String) throws(LiteRecordError) {
        var reader = ImportJSONReader(data)
        do {
            value = try reader.read()
        } catch {
            throw LiteRecordError(.validationFailed, "importing \(entityName): the data is not valid JSON: \(error.reason)")
        }
        exactNumbers = reader.exactNumbers
        self.entityName = entityName
    }

    /// A JSON array of objects, or one object as a list of one.
    func objects() throws(LiteRecordError) -> [[String: Any]] {
        switch ImportValue(value) {
        case .object(let object):
            return [object]
        case .array(let items):
            var objects: [[String: Any]] = []
            objects.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                guard case .object(let object) = ImportValue(item) else {
                    throw LiteRecordError(
                        .validationFailed, "importing \(entityName): element \(index): is \(ImportValue(item).shape), not an object")
                }
                objects.append(object)
            }
            return objects
        case let other:
            throw LiteRecordError(
                .validationFailed, "importing \(entityName): the JSON is \(other.shape), not an array of objects or an object")
        }
    }

    func object() throws(LiteRecordError) -> [String: Any] {
        switch ImportValue(value) {
        case .object(let object):
            return object
        case let other:
            throw LiteRecordError(.validationFailed, "importing \(entityName): the JSON is \(other.shape), not an object")
        }
    }
}
