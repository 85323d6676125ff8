/// An entity or attribute whose stored data a ``MigrationPlan`` allows a
/// migration to delete.
struct DeclaredRemoval: Equatable, Sendable {
    /// The entity's name: as stored, or as the new model calls it after a rename.
    let entity: String
    /// The stored attribute's name; `nil` declares the whole entity.
    let attribute: String?
}

extension MigrationPlan {
    /// Returns the plan with the removal of entity `name` declared, so that a
    /// migration may drop its table with every record in it.
    ///
    /// A migration never deletes stored records because an entity is missing
    /// from the model it is opened with — a forgotten entity in a setup call
    /// looks exactly like a removed one. Without this declaration, opening a
    /// store whose table for `name` holds records throws `.migrationFailed`
    /// naming the entity and how many records it holds, and leaves the file
    /// untouched; an empty table is dropped without one. The store is copied
    /// first, and a migration that removed anything keeps that copy (see
    /// ``MigrationReport/keptCopyURL``).
    ///
    /// Declaring something the store does not hold, or the model still has,
    /// does nothing, so a plan can keep its declarations across later versions.
    /// Custom steps still run before the table is dropped, and can move its
    /// records elsewhere.
    ///
    /// ```swift
    /// let plan = MigrationPlan().removeEntity("ReadingSession")
    /// try RecordStack.setupAutoMigrating(storeNamed: "Books", entities: [Book.self], plan: plan)
    /// ```
    ///
    /// The plan is checked when a stack opens with it: an empty name makes the
    /// open throw ``LiteRecordError`` of kind `.migrationFailed`.
    public func removeEntity(_ name: String) -> MigrationPlan {
        var plan = self
        plan.removals.append(DeclaredRemoval(entity: name, attribute: nil))
        return plan
    }

    /// Returns the plan with the removal of attribute `name` of entity `entity`
    /// declared, so that a migration may drop its column and the values in it.
    ///
    /// `name` is the attribute's stored name; `entity` is the entity's stored
    /// name or, after a rename (`@Entity(originalName:)`), its new one. Without
    /// this declaration, opening a store in which some record holds a value
    /// (anything but `NULL`) for the removed attribute throws `.migrationFailed`
    /// naming the attribute and how many records hold a value, and leaves the
    /// file untouched; a column that holds only `NULL`s is dropped without
    /// one. Otherwise as ``removeEntity(_:)``.
    ///
    /// ```swift
    /// let plan = MigrationPlan()
    ///     .removeAttribute("nick", of: "Person")
    ///     .removeEntity("ReadingSession")
    /// let stack = try RecordStack(storeAt: url, entities: [Person.self], migration: .plan(plan))
    /// ```
    ///
    /// The plan is checked when a stack opens with it: an empty name makes the
    /// open throw ``LiteRecordError`` of kind `.migrationFailed`.
    public func removeAttribute(_ name: String, of entity: String) -> MigrationPlan {
        var plan = self
        plan.removals.append(DeclaredRemoval(entity: entity, attribute: name))
        return plan
    }

    /// Returns the plan with the removal of relationship `name` of entity
    /// `entity` declared, so that a migration may delete its stored links: a
    /// to-one's column, or a many-to-many's join table.
    ///
    /// Without this declaration, opening a store that holds links for a
    /// relationship the model no longer has throws `.migrationFailed` naming
    /// it, and leaves the file untouched. Otherwise as ``removeAttribute(_:of:)``.
    ///
    /// ```swift
    /// let plan = MigrationPlan().removeRelationship("tags", of: "Book")
    /// ```
    ///
    /// The plan is checked when a stack opens with it: an empty name makes the
    /// open throw ``LiteRecordError`` of kind `.migrationFailed`.
    public func removeRelationship(_ name: String, of entity: String) -> MigrationPlan {
        // A to-one is stored as a column, so it is declared like one.
        removeAttribute(name, of: entity)
    }

    /// Whether the plan declares the removal of the stored entity `storedName`.
    func declaresRemoval(ofEntity storedName: String) -> Bool {
        removals.contains { $0.attribute == nil && $0.entity == storedName }
    }

    /// Whether the plan declares the removal of the stored attribute
    /// `attribute` of an entity called `entityNames` (stored and new name).
    func declaresRemoval(ofAttribute attribute: String, of entityNames: Set<String>) -> Bool {
        removals.contains { $0.attribute == attribute && entityNames.contains($0.entity) }
    }
}

/// Stored data that a migration would delete, found before anything is
/// written.
struct DataRemoval {
    /// The entity's stored name (its table).
    let table: String
    /// The entity's name in the new model, for an attribute of a kept entity.
    let entity: String
    /// The stored attribute; `nil` for the whole entity.
    let attribute: String?
    /// Records in the table, or records holding a value for the attribute.
    let records: Int64
    /// Whether the plan declares it.
    let isDeclared: Bool

    /// Whether the migration may go ahead with it: nothing is lost, or the
    /// loss was asked for.
    var isAllowed: Bool { records == 0 || isDeclared }

    /// How the declaration is written, e.g. `MigrationPlan().removeEntity("Note")`.
    var declaration: String {
        "MigrationPlan()" + Self.call(entity: attribute == nil ? table : entity, attribute: attribute)
    }

    /// The plan method that declares the removal, e.g. `.removeEntity("Note")`.
    static func call(entity: String, attribute: String?) -> String {
        if let attribute {
            return ".removeAttribute(\(swiftLiteral(attribute)), of: \(swiftLiteral(entity)))"
        }
        return ".removeEntity(\(swiftLiteral(entity)))"
    }

    /// Why the migration is refused, naming what would be lost and the way to
    /// allow it.
    var refusal: String {
        let advice = "declare it with let plan = \(declaration) and open with setupAutoMigrating(…, plan: plan) or migration: .plan(plan)"
        if let attribute {
            return
                "\(entity): attribute '\(attribute)' is not in the model, but \(records) stored record(s) hold a value for it, which the migration would delete; if it was left out by mistake, add it back; to delete the values, \(advice)"
        }
        return
            "\(table): entity is not in the model, but its table holds \(records) record(s), which the migration would delete; if it was left out of the entity list by mistake, add it back; to delete the records, \(advice)"
    }

    /// A line for the log and the report.
    var summary: String {
        let what = attribute.map { "attribute \(entity).\($0)" } ?? "entity \(table)"
        if records == 0 { return "removing \(what), which holds no data" }
        let noun = attribute == nil ? "record(s)" : "value(s)"
        return "removing \(what) with \(records) \(noun), as the MigrationPlan declares"
    }
}

/// `text` as a Swift string literal, for messages that show code to write.
private func swiftLiteral(_ text: String) -> String {
    var literal = "\""
    for character in text.unicodeScalars {
        switch character {
        case "\"": literal += "\\\""
        case "\\": literal += "\\\\"
        case "\n": literal += "\\n"
        default: literal.unicodeScalars.append(character)
        }
    }
    return literal + "\""
}

extension Migrator {
    /// The stored data `work` would delete: tables of removed entities and
    /// columns of removed attributes, counted by reading only.
    func dataRemovals(_ work: Work) throws -> [DataRemoval] {
        var removals: [DataRemoval] = []
        for table in work.dropped {
            let records = try connection.count(SelectStatement(["COUNT(*)"], from: SQLIdentifier.quote(table)).sql)
            removals.append(
                DataRemoval(
                    table: table, entity: table, attribute: nil, records: records,
                    isDeclared: plan?.declaresRemoval(ofEntity: table) ?? false))
        }
        for entity in work.entities {
            let names: Set = [entity.storedTable, entity.entity.name]
            for column in entity.removedColumns {
                let filled = SelectStatement(["COUNT(*)"], from: SQLIdentifier.quote(entity.storedTable), where: .isNotNull(SQLIdentifier(column)))
                let records = try connection.count(filled.sql)
                removals.append(
                    DataRemoval(
                        table: entity.storedTable, entity: entity.entity.name, attribute: column, records: records,
                        isDeclared: plan?.declaresRemoval(ofAttribute: column, of: names) ?? false))
            }
        }
        return removals
    }
}

extension [SchemaChange] {
    /// What the plain setup says when the differences include a removal, whose
    /// data no migration deletes unless it is declared; `nil` otherwise.
    var removalAdvice: String? {
        let calls = compactMap { change -> String? in
            switch change.detail {
            case .entityRemoved: DataRemoval.call(entity: change.entity, attribute: nil)
            case .attributeRemoved(let name): DataRemoval.call(entity: change.entity, attribute: name)
            case .relationshipRemoved(let name): ".removeRelationship(\(swiftLiteral(name)), of: \(swiftLiteral(change.entity)))"
            default: nil
            }
        }
        guard !calls.isEmpty else { return nil }
        return
            "A migration never deletes the stored data of an entity or attribute missing from the model: if one was left out by mistake, add it back; to delete its data, declare the removal with let plan = MigrationPlan()\(calls.joined()) and open with setupAutoMigrating(…, plan: plan) or migration: .plan(plan)"
    }
}
