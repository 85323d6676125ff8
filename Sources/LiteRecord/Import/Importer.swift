import Foundation

/// One import into one context: two passes over the input.
///
/// 1. Collect the unique keys of every object the input names, per entity
///    (nested objects and bare keys included), and look them up: first among
///    the context's unsaved objects, then in the store with one
///    `SELECT … WHERE key IN (…)` per batch of keys. Never one per object.
/// 2. Import each element: update the matched object or create one, set its
///    attributes and relationships, run its hooks. Objects created here are
///    matched too, so a key repeated in the input updates the same object
///    (the last value wins).
///
/// Any failure takes the import back (``ImportJournal``) and throws
/// `.validationFailed` naming the element and key path.
///
/// Nested objects are imported by recursion, four frames a level, so the
/// nesting is limited to ``maximumDepth`` levels: pass 1 refuses a deeper
/// input before pass 2 starts, and never recurses deeper itself.
final class Importer {
    let context: RecordContext
    let rootName: String
    private var plans: [ObjectIdentifier: ImportPlan] = [:]
    /// Objects by canonical unique key, per entity type.
    private var matches: [ObjectIdentifier: [SQLValue: any Entity]] = [:]
    /// Per entity type, the first nested object (or element) of the input
    /// with each key, until it is imported: a bare key met before it makes
    /// the object from it (``placeholder(_:_:_:)``), so that order does not matter.
    private var definitions: [ObjectIdentifier: [SQLValue: (element: [String: Any], path: ImportPath)]] = [:]
    private let journal: ImportJournal
    /// The exact values of numbers the input's `NSNumber`s do not hold
    /// exactly (``ImportJSONReader/exactNumbers``).
    private let exactNumbers: [ObjectIdentifier: ImportNumber]

    /// How deep objects may nest in one element (an element is level 1).
    static let maximumDepth = 100

    /// The most keys one lookup binds: SQLite's historical default limit on
    /// variables, safe with every build (https://sqlite.org/limits.html#max_variable_number).
    static let batchSize = 999

    init(context: RecordContext, rootName: String, exactNumbers: [ObjectIdentifier: ImportNumber] = [:]) {
        self.context = context
        self.rootName = rootName
        self.exactNumbers = exactNumbers
        journal = ImportJournal(context)
    }

    // MARK: Running

    /// Imports `elements` as `T` objects; the distinct objects imported, in
    /// the order they first appear (skipped elements left out).
    func run<T: Entity>(_ elements: [[String: Any]], as type: T.Type) throws(LiteRecordError) -> [T] {
        do throws(LiteRecordError) {
            let plan = try plan(for: T.self)
            var keys: [ObjectIdentifier: (type: any Entity.Type, keys: Set<SQLValue>)] = [:]
            for (index, element) in elements.enumerated() {
                try collectKeys(element, plan, ImportPath(index: index, keyPath: ""), depth: 1, into: &keys)
            }
            for (id, entry) in keys where !entry.keys.isEmpty {
                matches[id] = try findMatches(entry.type, Array(entry.keys))
            }
            var result: [T] = []
            var seen = Set<ObjectIdentifier>()
            for (index, element) in elements.enumerated() {
                if let object = try importElement(element, as: T.self, plan, ImportPath(index: index, keyPath: "")),
                    seen.insert(ObjectIdentifier(object)).inserted
                {
                    result.append(object)
                }
            }
            return result
        } catch {
            journal.undo()
            throw error
        }
    }

    private func plan(for type: any Entity.Type) throws(LiteRecordError) -> ImportPlan {
        let id = ObjectIdentifier(type)
        if let plan = plans[id] { return plan }
        let plan = ImportPlan(try context.entity(for: type))
        plans[id] = plan
        return plan
    }

    private func failure(_ path: ImportPath, _ reason: String, entity: String? = nil) -> LiteRecordError {
        let subject = entity.map { $0 == rootName ? rootName : "\(rootName) (\($0))" } ?? rootName
        return LiteRecordError(.validationFailed, "importing \(subject): \(path.description): \(reason)")
    }

    /// The stored form of an attribute's value, checked against its optionality.
    private func coerce(
        _ raw: Any, _ attribute: ImportPlan.AttributePlan, _ plan: ImportPlan, _ path: @autoclosure () -> ImportPath
    ) throws(LiteRecordError) -> SQLValue {
        let value: SQLValue
        do throws(CoercionFailure) {
            value = try ImportCoercion.coerce(importValue(raw), to: attribute.type, dateReader: attribute.dateReader)
        } catch {
            throw failure(path(), "\(error.reason) for \(plan.entity.name).\(attribute.name)")
        }
        if value.isNull && !attribute.isOptional {
            throw failure(path(), "is null, but \(plan.entity.name).\(attribute.name) is not optional")
        }
        return value
    }

    /// `raw` as an ``ImportValue``, with its exact value when the JSON
    /// reader kept one aside.
    private func importValue(_ raw: Any) -> ImportValue {
        if !exactNumbers.isEmpty, let number = raw as? NSDecimalNumber, let exact = exactNumbers[ObjectIdentifier(number)] {
            return .exact(exact)
        }
        return ImportValue(raw)
    }

    private func lookUp(
        _ element: [String: Any], _ path: [String], _ at: @autoclosure () -> ImportPath
    ) throws(LiteRecordError) -> Any? {
        do throws(CoercionFailure) {
            return try ImportPlan.value(in: element, at: path)
        } catch {
            throw failure(at(), error.reason)
        }
    }

    // MARK: Pass 1: keys

    private func collectKeys(
        _ element: [String: Any], _ plan: ImportPlan, _ path: ImportPath, depth: Int,
        into keys: inout [ObjectIdentifier: (type: any Entity.Type, keys: Set<SQLValue>)]
    ) throws(LiteRecordError) {
        guard depth <= Self.maximumDepth else {
            throw failure(
                path, "nests objects more than \(Self.maximumDepth) levels deep, more than an import takes (its nested objects are imported by recursion)")
        }
        if let unique = plan.unique {
            if let raw = try lookUp(element, unique.path, path.appending(unique.key)) {
                let key = try coerce(raw, unique, plan, path.appending(unique.key))
                if !key.isNull {
                    let canonical = add(key, unique, plan, to: &keys)
                    if definitions[ObjectIdentifier(plan.entity.type)]?[canonical] == nil {
                        definitions[ObjectIdentifier(plan.entity.type), default: [:]][canonical] = (element, path)
                    }
                }
            }
        }
        for relationship in plan.relationships {
            guard let raw = element[relationship.key] else { continue }
            let destination = try self.plan(for: relationship.relationship.destination)
            let relationshipPath = path.appending(relationship.key)
            switch ImportValue(raw) {
            case .null: continue
            case .object(let nested):
                try collectKeys(nested, destination, relationshipPath, depth: depth + 1, into: &keys)
            case .array(let items):
                for (position, item) in items.enumerated() {
                    let itemPath = relationshipPath.appending(index: position)
                    if case .object(let nested) = ImportValue(item) {
                        try collectKeys(nested, destination, itemPath, depth: depth + 1, into: &keys)
                    } else {
                        try collectBareKey(item, destination, itemPath, into: &keys)
                    }
                }
            default:
                try collectBareKey(raw, destination, relationshipPath, into: &keys)
            }
        }
    }

    private func collectBareKey(
        _ raw: Any, _ plan: ImportPlan, _ path: ImportPath,
        into keys: inout [ObjectIdentifier: (type: any Entity.Type, keys: Set<SQLValue>)]
    ) throws(LiteRecordError) {
        let key = try bareKey(raw, plan, path)
        add(key, try uniqueAttribute(plan, path), plan, to: &keys)
    }

    /// Adds a key to look up; its canonical form.
    @discardableResult
    private func add(
        _ key: SQLValue, _ unique: ImportPlan.AttributePlan, _ plan: ImportPlan,
        to keys: inout [ObjectIdentifier: (type: any Entity.Type, keys: Set<SQLValue>)]
    ) -> SQLValue {
        let canonical = unique.isCanonicalText ? key.canonicalText : key
        keys[ObjectIdentifier(plan.entity.type), default: (plan.entity.type, [])].keys.insert(canonical)
        return canonical
    }

    private func uniqueAttribute(_ plan: ImportPlan, _ path: ImportPath) throws(LiteRecordError) -> ImportPlan.AttributePlan {
        guard let unique = plan.unique else {
            throw failure(
                path, "a bare key names a \(plan.entity.name) by its unique attribute, and \(plan.entity.name) has none: give a nested object, or mark an attribute '.unique'")
        }
        return unique
    }

    /// A bare value naming an object of `plan`'s entity by its unique key.
    private func bareKey(_ raw: Any, _ plan: ImportPlan, _ path: ImportPath) throws(LiteRecordError) -> SQLValue {
        let unique = try uniqueAttribute(plan, path)
        let value = ImportValue(raw)
        if case .array = value { throw failure(path, "is an array, which names no \(plan.entity.name)") }
        let key = try coerce(raw, unique, plan, path)
        if key.isNull { throw failure(path, "is null, which names no \(plan.entity.name)") }
        return key
    }

    // MARK: Lookups

    /// The objects whose unique key is one of `keys`: the context's unsaved
    /// ones first, then the store's, one statement per batch of keys.
    private func findMatches(_ type: any Entity.Type, _ keys: [SQLValue]) throws(LiteRecordError) -> [SQLValue: any Entity] {
        let plan = try plan(for: type)
        guard let unique = plan.unique else { return [:] }
        return try findMatches(type, keys, unique)
    }

    private func findMatches<D: Entity>(
        _ type: D.Type, _ keys: [SQLValue], _ unique: ImportPlan.AttributePlan
    ) throws(LiteRecordError) -> [SQLValue: any Entity] {
        var found: [SQLValue: any Entity] = [:]
        func key(of object: D) -> SQLValue? {
            guard let value = try? object.encodeAttribute(at: unique.index), !value.isNull else { return nil }
            return unique.isCanonicalText ? value.canonicalText : value
        }
        let wanted = Set(keys)
        // Unsaved objects: inserted, and saved ones whose key may have changed in memory.
        for object in context.inserted + context.lists.updated {
            guard let object = object as? D, object.stateBelongs(to: context),
                object.statePhase != .deleted, let value = key(of: object), wanted.contains(value)
            else { continue }
            found[value] = object
        }
        let missing = keys.filter { found[$0] == nil }
        guard !missing.isEmpty else { return found }
        let column = SQLIdentifier(unique.name)
        var start = 0
        while start < missing.count {
            let batch = missing[start..<min(start + Self.batchSize, missing.count)]
            start += batch.count
            // Batch sizes rounded up (padded with NULL, which matches
            // nothing) so that a few cached statements serve every import.
            let size = [8, 64, 256, Self.batchSize].first { $0 >= batch.count } ?? Self.batchSize
            var query = SQLQuery()
            query.whereSQL = WhereClause.column(column, in: Array(repeating: "?", count: size).joined(separator: ", ")).sql
            query.arguments = Array(batch) + Array(repeating: .null, count: size - batch.count)
            for object in try context.fetch(D.self, query) {
                // The in-memory key: an unsaved edit of the key wins.
                if let value = key(of: object), wanted.contains(value), found[value] == nil { found[value] = object }
            }
        }
        return found
    }

    // MARK: Pass 2: objects

    private func importAny(
        _ element: [String: Any], as type: any Entity.Type, _ path: ImportPath, fromKey: Bool = false
    ) throws(LiteRecordError) -> (any Entity)? {
        let plan = try plan(for: type)
        return try importElement(element, as: type, plan, path, fromKey: fromKey)
    }

    private func importElement<T: Entity>(
        _ element: [String: Any], as type: T.Type, _ plan: ImportPlan, _ path: ImportPath, fromKey: Bool = false
    ) throws(LiteRecordError) -> T? {
        let id = ObjectIdentifier(T.self)
        let key = try uniqueKey(element, plan, path)
        if let key { definitions[id]?[key] = nil }
        let object: T
        let values: [(index: Int, value: SQLValue)]
        // shouldImport runs before the other values are read, so that a
        // declined element's values cannot fail the import — except for a
        // new object of an entity without `init()`, which is made from them.
        if let key, let existing = matches[id]?[key] as? T {
            guard existing.shouldImport(element) else { return nil }
            values = try readValues(element, plan, path)
            object = existing
            journal.note(object)
        } else {
            var made = Self.newObject(T.self)
            if let made, !made.shouldImport(element) { return nil }
            values = try readValues(element, plan, path)
            if made == nil {
                let object = try make(T.self, plan, values, path, fromKey: fromKey)
                guard object.shouldImport(element) else { return nil }
                made = object
            }
            guard let made else { return nil }
            object = made
            journal.noteCreated(object)
            context.insert(object)
            if let key { matches[id, default: [:]][key] = object }
        }
        object.willImport(element)
        try apply(values, to: object, plan, path)
        try importRelationships(element, of: object, plan, path)
        object.didImport(element)
        return object
    }

    /// The element's unique key in canonical form; `nil` when it has none.
    private func uniqueKey(_ element: [String: Any], _ plan: ImportPlan, _ path: ImportPath) throws(LiteRecordError) -> SQLValue? {
        guard let unique = plan.unique, let raw = try lookUp(element, unique.path, path.appending(unique.key)) else { return nil }
        let value = try coerce(raw, unique, plan, path.appending(unique.key))
        if value.isNull { return nil }
        return unique.isCanonicalText ? value.canonicalText : value
    }

    /// Every attribute value the element has, checked before the object is touched.
    private func readValues(
        _ element: [String: Any], _ plan: ImportPlan, _ path: ImportPath
    ) throws(LiteRecordError) -> [(index: Int, value: SQLValue)] {
        var values: [(index: Int, value: SQLValue)] = []
        values.reserveCapacity(plan.attributes.count)
        for attribute in plan.attributes {
            guard let raw = try lookUp(element, attribute.path, path.appending(attribute.key)) else { continue }
            values.append((attribute.index, try coerce(raw, attribute, plan, path.appending(attribute.key))))
        }
        return values
    }

    /// `init()` of a ``DefaultInitializable`` entity; `nil` for others.
    private static func newObject<T: Entity>(_ type: T.Type) -> T? {
        guard let initializable = T.self as? any DefaultInitializable.Type else { return nil }
        return initializable.init() as? T
    }

    /// The object a later part of the input defines, made now (from its
    /// values, without its relationships or hooks) because a bare key names
    /// it first; the definition itself then updates it in turn.
    private func placeholder<T: Entity>(
        _ definition: (element: [String: Any], path: ImportPath), _ type: T.Type, _ key: SQLValue
    ) throws(LiteRecordError) -> T {
        let plan = try plan(for: T.self)
        let values = try readValues(definition.element, plan, definition.path)
        let object: T
        if let initialized = Self.newObject(T.self) {
            object = initialized
        } else {
            object = try make(T.self, plan, values, definition.path, fromKey: false)
        }
        journal.noteCreated(object)
        context.insert(object)
        matches[ObjectIdentifier(T.self), default: [:]][key] = object
        try apply(values, to: object, plan, definition.path)
        return object
    }

    private func placeholderAny(
        _ definition: (element: [String: Any], path: ImportPath), _ type: any Entity.Type, _ key: SQLValue
    ) throws(LiteRecordError) -> any Entity {
        try placeholder(definition, type, key)
    }

    /// A new object: `init()` for a ``DefaultInitializable`` entity, else
    /// read from a row of the imported values over the attributes' defaults.
    private func make<T: Entity>(
        _ type: T.Type, _ plan: ImportPlan, _ values: [(index: Int, value: SQLValue)], _ path: ImportPath, fromKey: Bool
    ) throws(LiteRecordError) -> T {
        if let object = Self.newObject(T.self) { return object }
        var row = [SQLValue?](repeating: nil, count: plan.attributes.count)
        for (index, value) in values { row[index] = value }
        var complete: [SQLValue] = []
        complete.reserveCapacity(row.count)
        for attribute in plan.attributes {
            if let value = row[attribute.index] {
                complete.append(value)
                continue
            }
            let description = plan.entity.attributes[attribute.index]
            if let defaultValue = description.defaultValue {
                do {
                    complete.append(try defaultValue())
                } catch {
                    throw failure(path, "the default value of \(plan.entity.name).\(attribute.name) cannot be stored: \(error)")
                }
            } else if attribute.isOptional {
                complete.append(.null)
            } else if fromKey {
                throw failure(
                    path,
                    "no \(plan.entity.name) has this key, and one cannot be created from its key alone: \(plan.entity.name).\(attribute.name) has no default value")
            } else {
                throw failure(
                    path.appending(attribute.key),
                    "is missing, and a new \(plan.entity.name) needs it: \(plan.entity.name).\(attribute.name) has no default value")
            }
        }
        do {
            return try T(row: Row(values: complete, entityName: plan.entity.name, attributeNames: plan.attributeNames))
        } catch {
            throw failure(path, "a new \(plan.entity.name) cannot be made from these values: \(Self.reason(error))")
        }
    }

    /// Sets the imported attributes; an unchanged value is left alone, so
    /// importing the same data twice changes nothing.
    private func apply<T: Entity>(
        _ values: [(index: Int, value: SQLValue)], to object: T, _ plan: ImportPlan, _ path: ImportPath
    ) throws(LiteRecordError) {
        guard !values.isEmpty else { return }
        let isNew = journal.isCreated(object)
        var full = [SQLValue](repeating: .null, count: plan.attributes.count)
        for (index, value) in values { full[index] = value }
        let row = Row(values: full, entityName: plan.entity.name, attributeNames: plan.attributeNames)
        let tracksChanges = T.tracksChanges && object.statePhase == .managed
        for (index, value) in values {
            if !isNew {
                // The journal has the whole object as it was before the import.
                if let old = try? object.encodeAttribute(at: index), Self.isSame(old, value) { continue }
            }
            do {
                try object.decodeAttribute(at: index, from: row)
            } catch {
                let attribute = plan.attributes[index]
                throw failure(
                    path.appending(attribute.key),
                    "is not a valid value for \(plan.entity.name).\(attribute.name): \(Self.reason(error))")
            }
            if tracksChanges { object.didChangeAttribute(at: index) }
        }
    }

    /// Byte-for-byte equality of stored forms (`==` on text is canonical
    /// equivalence, which would keep a differently normalized old value).
    private static func isSame(_ old: SQLValue, _ new: SQLValue) -> Bool {
        switch (old, new) {
        case (.text(let a), .text(let b)): a.utf8.elementsEqual(b.utf8)
        case (.real(let a), .real(let b)): a.bitPattern == b.bitPattern
        default: old == new
        }
    }

    private static func reason(_ error: any Error) -> String {
        (error as? LiteRecordError)?.message ?? "\(error)"
    }

    // MARK: Relationships

    private func importRelationships(
        _ element: [String: Any], of object: any Entity, _ plan: ImportPlan, _ path: ImportPath
    ) throws(LiteRecordError) {
        for relationshipPlan in plan.relationships {
            guard let raw = element[relationshipPlan.key] else { continue }
            let relationship = relationshipPlan.relationship
            let relationshipPath = path.appending(relationshipPlan.key)
            let value = ImportValue(raw)
            if case .null = value {
                // null clears a to-one; a to-many keeps its objects (an import adds to it).
                if !relationship.isToMany { setToOne(object, relationship, nil) }
                continue
            }
            if relationship.isToMany {
                var children: [any Entity] = []
                var items = [raw]
                var isList = false
                if case .array(let array) = value { (items, isList) = (array, true) }
                for (position, item) in items.enumerated() {
                    let itemPath = isList ? relationshipPath.appending(index: position) : relationshipPath
                    if let child = try related(item, relationship, itemPath) { children.append(child) }
                }
                addToMany(object, relationship, children)
            } else {
                if case .array = value {
                    throw failure(relationshipPath, "is an array, but \(relationship.qualifiedName) is a to-one relationship")
                }
                guard let target = try related(raw, relationship, relationshipPath) else { continue }
                setToOne(object, relationship, target)
            }
        }
    }

    /// The object a nested JSON object or a bare key names; `nil` when its
    /// `shouldImport` declined.
    private func related(
        _ raw: Any, _ relationship: ResolvedRelationship, _ path: ImportPath
    ) throws(LiteRecordError) -> (any Entity)? {
        let destination = relationship.destination
        if case .object(let nested) = ImportValue(raw) {
            return try importAny(nested, as: destination, path)
        }
        let plan = try plan(for: destination)
        let key = try bareKey(raw, plan, path)
        let unique = try uniqueAttribute(plan, path)
        let canonical = unique.isCanonicalText ? key.canonicalText : key
        if let existing = matches[ObjectIdentifier(destination)]?[canonical] { return existing }
        if let definition = definitions[ObjectIdentifier(destination)]?[canonical] {
            return try placeholderAny(definition, destination, canonical)
        }
        // Not found: a new object holding just the key, when the entity can be
        // complete that way (see make(_:_:_:_:fromKey:)).
        var element: [String: Any] = [:]
        var nested: Any = raw
        for component in unique.path.dropFirst().reversed() { nested = [component: nested] }
        element[unique.path[0]] = nested
        return try importAny(element, as: destination, path, fromKey: true)
    }

    private func setToOne(_ object: any Entity, _ relationship: ResolvedRelationship, _ target: (any Entity)?) {
        journal.note(object)
        journal.note(RelationGraph.toOneInMemory(object, relationship.index))
        if let target, let inverse = relationship.inverseIndex {
            journal.note(target)
            if !relationship.inverseIsToMany { journal.note(RelationGraph.toOneInMemory(target, inverse)) }
        }
        RelationGraph.setToOne(object, relationship.index, target)
    }

    /// Adds `children` to a to-many (an import never removes from one).
    /// Through the children's to-one when the inverse is one, so that nothing
    /// is read; a many-to-many of a saved object is read once to add to it.
    private func addToMany(_ object: any Entity, _ relationship: ResolvedRelationship, _ children: [any Entity]) {
        guard !children.isEmpty else { return }
        journal.note(object)
        if let inverse = relationship.inverseIndex, !relationship.inverseIsToMany {
            for child in children {
                journal.note(child)
                journal.note(RelationGraph.toOneInMemory(child, inverse))
                RelationGraph.setToOne(child, inverse, object)
            }
        } else {
            for child in children { journal.note(child) }
            let current = RelationGraph.toMany(object, relationship.index)
            RelationGraph.setToMany(object, relationship.index, current + children)
        }
    }
}
