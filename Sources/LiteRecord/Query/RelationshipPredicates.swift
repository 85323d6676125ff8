import Foundation

// Predicates through relationships: `$0.author?.name == "Ann"`,
// `$0.author == nil`, `$0.author?.recordID == annID`,
// `$0.books.contains { $0.title == "Dune" }`, `allSatisfy`, `count`,
// `isEmpty`. Everything stays one `WHERE` condition on the entity's own
// table — correlated subqueries, never joins — so every entry point that
// takes a predicate (fetch, count, exists, deleteAll, aggregates, enumerate)
// accepts these unchanged and no row is ever returned twice.
//
// - An object is its row id: the predicate's own object is `"Book"."Z_PK"`,
//   a to-one is its foreign-key column, and `nil` is `NULL`, exactly as
//   Swift's optional chaining sees a missing object.
// - An attribute of an object whose row is not in scope is read with a
//   scalar subquery by primary key (`(SELECT a."name" FROM "Author" AS a
//   WHERE a."Z_PK" = "Book"."author")`); foreign keys are enforced, so the
//   row exists whenever the reference is not `NULL`.
// - A to-many is its owner's row id; `contains { … }` and `allSatisfy { … }`
//   are `EXISTS` / `NOT EXISTS` over the destination's rows (through the join
//   table for a many-to-many), with the closure's object in scope under an
//   alias, so its attributes are plain columns.

/// How an object- or relationship-valued ``SQLFragment`` reaches its rows.
enum RelationReference {
    /// An entity object whose row id is the fragment. `alias` is the quoted
    /// name under which its row is in scope (its attributes are columns of
    /// it), or `nil` when only the row id is known.
    case object(any Entity.Type, alias: String?)
    /// The objects of a to-many relationship whose owner's row id is the
    /// fragment.
    case objects(ResolvedRelationship, destination: any Entity.Type)
}

extension PredicateTranslator {
    /// The predicate's own object: its row, in scope as the entity's table.
    func rootObject() -> SQLFragment {
        let table = SQLIdentifier.quote(entityName)
        return SQLFragment(
            "\(table).\(SQLIdentifier.rowID)", kind: .object(entityName: entityName),
            reference: .object(rootType, alias: table))
    }

    /// A property of an entity object: an attribute, a relationship, or its
    /// `recordID`.
    func member(
        _ keyPath: AnyKeyPath, of base: SQLFragment, type objectType: any Entity.Type, alias: String?, valueType: Any.Type
    ) throws(LiteRecordError) -> SQLFragment {
        let entity = entityDescription(objectType)
        // Without the object's row in scope, the value is read from a fresh
        // alias of its table, by primary key.
        let rowAlias = alias ?? nextAlias()
        if let index = Self.attributeIndex(of: objectType, for: keyPath), entity.attributes.indices.contains(index) {
            let attribute = entity.attributes[index]
            let value = try column(
                attribute, sql: "\(rowAlias).\(SQLIdentifier(attribute.name))", of: entity.name, keyPath: keyPath,
                type: valueType)
            return alias == nil ? read(value, of: base, in: entity, alias: rowAlias) : value
        }
        if let index = Self.relationshipIndex(of: objectType, for: keyPath), entity.relationships.indices.contains(index) {
            let relationship = entity.relationships[index]
            let destination = Self.destinationType(valueType, isToMany: relationship.isToMany) ?? relationship.destination
            if relationship.isToMany {
                let owner = alias.map { "\($0).\(SQLIdentifier.rowID)" }
                return SQLFragment(
                    owner ?? base.sql, owner == nil ? base.arguments : [],
                    kind: .objects(entityName: relationship.destinationName), isOptional: false,
                    mayFail: owner == nil && base.mayFail, reference: .objects(relationship, destination: destination))
            }
            let foreignKey = SQLFragment(
                "\(rowAlias).\(SQLIdentifier(relationship.name))",
                kind: .object(entityName: relationship.destinationName), isOptional: true,
                reference: .object(destination, alias: nil))
            return alias == nil ? read(foreignKey, of: base, in: entity, alias: rowAlias) : foreignKey
        }
        if keyPath == Self.recordIDKeyPath(of: objectType) {
            return SQLFragment(
                base.sql, base.arguments, kind: .recordID(entityName: entity.name),
                isOptional: ValueType(valueType).isOptional, mayFail: base.mayFail)
        }
        throw unsupported(
            keyPath,
            "it is not a stored attribute or relationship of \(entity.name) (a @Transient or computed property, or an entity whose attributeIndex(for:) or relationshipIndex(for:) does not list it)"
        )
    }

    /// `column` of the row `alias` of `entity`, read from the row whose id is
    /// `object` with a scalar subquery.
    private func read(_ column: SQLFragment, of object: SQLFragment, in entity: EntityDescription, alias: String) -> SQLFragment {
        var read = SQLFragment.combine(
            [
                "(SELECT ", .sql(column), " FROM \(SQLIdentifier(entity.name)) AS \(alias) WHERE \(alias).\(SQLIdentifier.rowID) = ",
                .sql(object), ")",
            ], kind: column.kind, isOptional: column.isOptional)
        read.reference = column.reference
        read.readsRow = object.sql
        return read
    }

    // MARK: To-many

    /// `FROM … WHERE <link>` selecting the objects of a to-many relationship,
    /// the destination's rows named `alias`; `nil` table alias when only the
    /// links are needed (counting, emptiness).
    private func relatedRows(
        _ objects: SQLFragment, _ relationship: ResolvedRelationship, alias: String, needsRows: Bool
    ) throws(LiteRecordError) -> SQLFragment {
        let key = SQLIdentifier.rowID.quoted
        let destination = SQLIdentifier.quote(relationship.destinationName)
        switch relationship.storage {
        case .inverseForeignKey(let column):
            return .combine(
                [" FROM \(destination) AS \(alias) WHERE \(alias).\(SQLIdentifier(column)) = ", .sql(objects)],
                kind: .bool, isOptional: false)
        case .joinTable(let table):
            let link = nextAlias()
            let join =
                needsRows
                ? " JOIN \(destination) AS \(alias) ON \(alias).\(key) = \(link).\(SQLIdentifier(table.destinationColumn))"
                : ""
            return .combine(
                [
                    " FROM \(SQLIdentifier(table.name)) AS \(link)\(join) WHERE \(link).\(SQLIdentifier(table.sourceColumn)) = ",
                    .sql(objects),
                ], kind: .bool, isOptional: false)
        case .foreignKey:
            throw LiteRecordError(.unsupportedPredicate, "\(relationship.qualifiedName) is not a to-many relationship")
        }
    }

    /// `books.count` and `books.isEmpty`, or `nil` for another key path.
    func relatedProperty(_ keyPath: AnyKeyPath, of objects: SQLFragment, rootType: Any.Type, type: Any.Type) throws(LiteRecordError) -> SQLFragment? {
        guard case .objects(let relationship, _)? = objects.reference,
            let collection = rootType as? any JSONCollection.Type
        else { return nil }
        let isCount = keyPath == collection.countKeyPath
        guard isCount || keyPath == collection.isEmptyKeyPath else { return nil }
        let rows = try relatedRows(objects, relationship, alias: nextAlias(), needsRows: false)
        if isCount {
            return .combine(["(SELECT COUNT(*)", .sql(rows), ")"], kind: ValueType(type).kind, isOptional: false)
        }
        return .bool(["(NOT EXISTS (SELECT 1", .sql(rows), "))"])
    }

    /// `books.contains { test }` / `books.allSatisfy { test }`: whether a
    /// related object passes (or none fails) the test, with the closure's
    /// object in scope as a row of the destination.
    func relatedElementTest(
        _ objects: SQLFragment, variable: PredicateExpressions.VariableID, test: Any, allSatisfy: Bool, expression: Any
    ) throws(LiteRecordError) -> SQLFragment {
        guard case .objects(let relationship, let destination)? = objects.reference else {
            throw unsupported(expression, "it is not applied to a to-many relationship")
        }
        let alias = nextAlias()
        let element = SQLFragment(
            "\(alias).\(SQLIdentifier.rowID)", kind: .object(entityName: relationship.destinationName),
            reference: .object(destination, alias: alias))
        let condition = try with(variable, boundTo: element) { () throws(LiteRecordError) in
            try translate(test)
        }
        guard condition.kind == .bool, !condition.isOptional else {
            throw unsupported(expression, "the closure does not produce a Bool")
        }
        // Swift stops at the first object that decides the result, in the order
        // of the loaded relationship; SQL tests the rows in an order of its own,
        // which only matters when a test can fail.
        guard !condition.mayFail else {
            throw unsupported(
                expression,
                "its closure can fail (checked arithmetic), and SQL would test the related objects in another order than Swift; compute the value outside the predicate and capture it"
            )
        }
        let rows = try relatedRows(objects, relationship, alias: alias, needsRows: true)
        return .bool([
            allSatisfy ? "(NOT EXISTS (SELECT 1" : "(EXISTS (SELECT 1", .sql(rows),
            allSatisfy ? " AND (NOT " : " AND (", .sql(condition), ")))",
        ])
    }

    /// `books.contains(object)` for an object of the predicate (captured
    /// objects cannot be written: they are not `Sendable`).
    func relatedMembership(_ objects: SQLFragment, value: Any) throws(LiteRecordError) -> SQLFragment {
        guard case .objects(let relationship, _)? = objects.reference else {
            throw unsupported(value, "it is not applied to a to-many relationship")
        }
        let needle = try translate(value)
        let alias = nextAlias()
        let rows = try relatedRows(objects, relationship, alias: alias, needsRows: true)
        return .bool([
            "(EXISTS (SELECT 1", .sql(rows), " AND \(alias).\(SQLIdentifier.rowID) = ", .sql(needle), "))",
        ])
    }

    // MARK: Types and key paths

    /// The model's description of an entity reached in the predicate. An
    /// entity missing from the model (only the predicate's own can be: the
    /// model refuses relationships to others) is described from its type, so
    /// that the query goes on to report it as the caller's mistake
    /// (`.invalidObject`, "add it to the entities given to setup").
    private func entityDescription(_ type: any Entity.Type) -> EntityDescription {
        model.entity(for: type) ?? EntityDescription(type: type)
    }

    /// The entity type of a relationship property's value (`Author?` → `Author`,
    /// `[Book]` → `Book`), as the key path is typed.
    private static func destinationType(_ valueType: Any.Type, isToMany: Bool) -> (any Entity.Type)? {
        let type = isToMany ? (valueType as? any JSONCollection.Type)?.elementType : unwrapped(valueType)
        return type as? any Entity.Type
    }

    static func attributeIndex(of type: any Entity.Type, for keyPath: AnyKeyPath) -> Int? {
        func open<D: Entity>(_ type: D.Type) -> Int? {
            (keyPath as? PartialKeyPath<D>).flatMap { D.attributeIndex(for: $0) }
        }
        return open(type)
    }

    static func relationshipIndex(of type: any Entity.Type, for keyPath: AnyKeyPath) -> Int? {
        func open<D: Entity>(_ type: D.Type) -> Int? {
            (keyPath as? PartialKeyPath<D>).flatMap { D.relationshipIndex(for: $0) }
        }
        return open(type)
    }

    /// `\D.recordID` for the entity type `type`.
    static func recordIDKeyPath(of type: any Entity.Type) -> AnyKeyPath {
        func open<D: Entity>(_ type: D.Type) -> AnyKeyPath { \D.recordID }
        return open(type)
    }
}
