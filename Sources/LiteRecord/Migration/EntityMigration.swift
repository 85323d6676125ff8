/// What happens to one entity that exists in both the stored and the new
/// model, decided before anything is written.
///
/// Without custom steps to run, ``first`` takes the table straight to its new
/// shape. With pending ``MigrationPlan`` steps the table goes through an
/// interim shape while they run: removed columns are still there (a step may
/// read them), a new non-optional column without a default accepts `NULL`
/// (a step fills it), a column whose type change cannot be inferred keeps its
/// old values without affinity (a step converts them); ``second`` then takes
/// the table to its final shape and ``handedToSteps`` are verified.
struct EntityMigration {
    let entity: EntityDescription
    /// The table's name in the store before the migration (differs from
    /// `entity.name` after a rename).
    let storedTable: String
    var first: TableTransform
    var second: TableTransform?
    var handedToSteps: [HandedColumn] = []
    /// Read-only checks of the stored data, run before anything is written.
    var dataChecks: [DataCheck] = []
    /// Checks of the values the custom steps leave, run after them and
    /// before ``second`` converts them (so a step can fix what would not fit).
    var postStepChecks: [DataCheck] = []
    /// Stored columns the new model has no attribute for: dropped with their
    /// values once the steps (if any) have run.
    var removedColumns: [String] = []
    /// Columns filled row by row from a default that differs from call to
    /// call (`= UUID()`), after ``first`` and before the steps.
    var perRowFills: [PerRowFill] = []

    /// A default evaluated once per stored record: one value for every record
    /// would make a `UUID()` default the same in all of them.
    struct PerRowFill {
        let column: String
        /// Only the records holding `NULL` (an optional attribute becoming
        /// non-optional), or every record (a new attribute).
        let nullsOnly: Bool
        let make: @Sendable () throws -> SQLValue
    }

    /// A column whose values a custom step must provide.
    struct HandedColumn {
        let name: String
        let type: AttributeType
        let isOptional: Bool
        /// Whether the step must convert the values to a new type.
        let convertsType: Bool
    }

    /// A condition on the stored data without which the inferred migration
    /// would fail halfway; checked up front for a clear message.
    enum DataCheck {
        /// The column becomes non-optional without a default.
        case noNulls(table: String, column: String, entity: String, attribute: String)
        /// The column's values convert to another numeric type (or `Bool`),
        /// which must hold each of them exactly.
        case converts(table: String, column: String, entity: String, attribute: String, from: AttributeType, to: AttributeType)

        /// The reason the migration cannot go on, or `nil` when the data allows it.
        func problem(in connection: Connection) throws -> String? {
            switch self {
            case .noNulls(let table, let column, let entity, let attribute):
                let count = try connection.count(
                    "SELECT COUNT(*) FROM \(SQLIdentifier(table)) WHERE \(SQLIdentifier(column)) IS NULL")
                guard count > 0 else { return nil }
                return
                    "\(entity): attribute '\(attribute)' became non-optional without a default value, but \(count) stored record(s) hold no value for it; give it a default value or fill it in a MigrationPlan step"
            case .converts(let table, let column, let entity, let attribute, let from, let to):
                return try Self.conversionProblem(
                    in: connection, table: table, column: column, entity: entity, attribute: attribute, from: from, to: to)
            }
        }

        /// Scans the column for the first value `to` cannot hold exactly:
        /// SQLite's `CAST` saturates (1e20 becomes Int64.max), truncates (0.5
        /// becomes 0) and rounds (2^53 + 1 becomes 2^53), and a value kept in
        /// its storage class may read back changed (5 as `true`, 1e300 as a
        /// `Float`'s infinity), so the values are judged as the new type
        /// reads them, in Swift.
        private static func conversionProblem(
            in connection: Connection, table: String, column: String, entity: String, attribute: String,
            from: AttributeType, to: AttributeType
        ) throws -> String? {
            let statement = try connection.makeStatement(
                "SELECT \(SQLIdentifier.rowID.quoted), \(SQLIdentifier(column)) FROM \(SQLIdentifier(table)) WHERE \(SQLIdentifier(column)) IS NOT NULL ORDER BY 1")
            defer { statement.finalize() }
            var first: Int64?
            var count = 0
            while try statement.step() {
                guard !to.holdsExactly(statement.value(at: 1)) else { continue }
                if first == nil, case .integer(let row) = statement.value(at: 0) { first = row }
                count += 1
            }
            guard let first else { return nil }
            let what = to == .bool ? "is neither 0 nor 1" : "cannot be held exactly by \(to)"
            return
                "\(entity): attribute '\(attribute)' changed type from \(from) to \(to), but the stored value of record \(table) \(Model.primaryKeyColumn) = \(first) \(what) (\(count) record(s) in all), and a value is never changed silently; convert or fix those values in a MigrationPlan step, or keep \(from)"
        }
    }

    /// Decides how `old` becomes `entity`. Changes that cannot be inferred are
    /// appended to `refusals`, unless custom steps are pending to handle them.
    init(old: EntitySchema, new entity: EntityDescription, names: MigrationNames, stepsPending: Bool, refusals: inout [String]) {
        self.entity = entity
        storedTable = old.name
        var plan = ColumnPlan(old: old, entity: entity, names: names, stepsPending: stepsPending)
        for attribute in entity.attributes {
            plan.addAttribute(attribute, refusals: &refusals)
        }
        plan.addToOneRelationships(refusals: &refusals)
        plan.refuseToManyChanges(refusals: &refusals)
        let oldToOnes = (old.relationships ?? []).filter { !$0.isToMany }
        // A destination renamed with its entity is renamed in the REFERENCES
        // clause too: `ALTER TABLE … RENAME TO` rewrites the tables that refer
        // to it (https://sqlite.org/lang_altertable.html#altertabrename).
        let current =
            old.attributes.map(ColumnSpec.init)
            + oldToOnes.map { ColumnSpec.foreignKey($0.name, references: names.newEntity(forStored: $0.destination) ?? $0.destination) }
        removedColumns = (old.attributes.map(\.name) + oldToOnes.map(\.name)).filter { !plan.matched.contains($0) }
        dataChecks = plan.checks
        perRowFills = plan.fills
        guard stepsPending else {
            first = TableTransform(table: entity.name, current: current, target: plan.direct)
            // Columns filled row by row accept NULL until filled.
            if !perRowFills.isEmpty {
                let finishing = TableTransform(
                    table: entity.name, current: plan.direct.map(\.spec), target: Self.finalShape(of: entity, casts: [:]))
                second = finishing.isIdentity ? nil : finishing
            }
            return
        }
        plan.keepRemovedColumns(of: current)
        first = TableTransform(table: entity.name, current: current, target: plan.interim)
        let finishing = TableTransform(
            table: entity.name, current: plan.interim.map(\.spec), target: Self.finalShape(of: entity, casts: plan.castsAfterSteps))
        second = finishing.isIdentity ? nil : finishing
        handedToSteps = plan.handed
        postStepChecks = plan.postStepChecks
    }

    /// The columns of `entity`'s table once the migration is over, each
    /// copied from the interim table's column of the same name, converted
    /// with `CAST` when the conversion waited for the steps.
    private static func finalShape(of entity: EntityDescription, casts: [String: AttributeType]) -> [TargetColumn] {
        entity.attributes.map {
            TargetColumn(spec: ColumnSpec($0.schema), source: .column($0.name, cast: casts[$0.name], fallback: nil))
        }
            + entity.toOneIndexes.map { index in
                let relationship = entity.relationships[index]
                return TargetColumn(
                    spec: .foreignKey(relationship.name, references: relationship.destinationName),
                    source: .copy(relationship.name))
            }
    }

    /// The two target shapes of one table (``first``'s without custom steps,
    /// and the interim one while steps run), built column by column, with
    /// what the new columns hand to the steps and ask of the stored data.
    private struct ColumnPlan {
        let old: EntitySchema
        let entity: EntityDescription
        let names: MigrationNames
        let stepsPending: Bool
        /// The table's shape when no custom step runs: straight to the new model.
        var direct: [TargetColumn] = []
        /// The table's shape while custom steps run.
        var interim: [TargetColumn] = []
        var handed: [HandedColumn] = []
        var checks: [DataCheck] = []
        /// Checks run after the custom steps, on the interim table.
        var postStepChecks: [DataCheck] = []
        /// Columns converted (with `CAST`) only once the custom steps ran,
        /// so that the steps see, and may fix, the stored values.
        var castsAfterSteps: [String: AttributeType] = [:]
        /// Stored column names the new model keeps (under their old or a new name).
        var matched = Set<String>()
        /// Columns whose default is evaluated for each record.
        var fills: [PerRowFill] = []

        init(old: EntitySchema, entity: EntityDescription, names: MigrationNames, stepsPending: Bool) {
            self.old = old
            self.entity = entity
            self.names = names
            self.stepsPending = stepsPending
        }

        /// Plans one attribute's column: added, or carried over from its
        /// stored predecessor.
        mutating func addAttribute(_ attribute: AttributeDescription, refusals: inout [String]) {
            let defaultValue: SQLValue?
            do {
                defaultValue = try attribute.defaultValue?()
            } catch {
                refusals.append("\(entity.name): the default value of attribute '\(attribute.name)' cannot be produced: \(error)")
                return
            }
            // A NULL default is no default for a non-optional column.
            let usableDefault = defaultValue.flatMap { $0.isNull ? nil : $0 }
            // A default that differs from one call to the next (`= UUID()`,
            // `= Date()`) is evaluated for each stored record.
            let perRow = usableDefault != nil && (try? attribute.defaultValue?()) != defaultValue
            let stored = names.storedAttribute(attribute.name, of: entity.name).flatMap(old.attribute(named:))
            if let make = attribute.defaultValue, perRow, stored == nil || (stored?.isOptional == true && !attribute.isOptional) {
                fills.append(PerRowFill(column: attribute.name, nullsOnly: stored != nil, make: make))
            }
            guard let previous = stored else {
                addNewAttribute(attribute, default: perRow ? nil : usableDefault, perRow: perRow, refusals: &refusals)
                return
            }
            matched.insert(previous.name)
            keepAttribute(attribute, from: previous, default: perRow ? nil : usableDefault, perRow: perRow, refusals: &refusals)
        }

        /// Plans the column of an attribute the stored table lacks: filled
        /// with its default or `NULL`, handed to a step, or refused.
        private mutating func addNewAttribute(
            _ attribute: AttributeDescription, default usableDefault: SQLValue?, perRow: Bool, refusals: inout [String]
        ) {
            let spec = ColumnSpec(attribute.schema)
            if perRow {
                var loose = spec
                loose.isOptional = true
                direct.append(TargetColumn(spec: loose, source: .value(.null)))
                interim.append(TargetColumn(spec: loose, source: .value(.null)))
            } else if let value = usableDefault {
                direct.append(TargetColumn(spec: spec, source: .value(value)))
                interim.append(TargetColumn(spec: spec, source: .value(value)))
            } else if attribute.isOptional {
                direct.append(TargetColumn(spec: spec, source: .value(.null)))
                interim.append(TargetColumn(spec: spec, source: .value(.null)))
            } else if stepsPending {
                var loose = spec
                loose.isOptional = true
                interim.append(TargetColumn(spec: loose, source: .value(.null)))
                handed.append(HandedColumn(name: attribute.name, type: attribute.type, isOptional: false, convertsType: false))
            } else {
                refusals.append(
                    "\(entity.name): attribute '\(attribute.name)' was added as non-optional without a default value, and LiteRecord cannot invent values for the stored records; give it a default value, make it optional, or fill it in a MigrationPlan step"
                )
            }
        }

        /// Plans the column of an attribute stored as `previous`: copied, cast
        /// to a new numeric type, given a default for its `NULL`s, or handed
        /// to a step when the change cannot be inferred.
        private mutating func keepAttribute(
            _ attribute: AttributeDescription, from previous: AttributeSchema, default usableDefault: SQLValue?, perRow: Bool,
            refusals: inout [String]
        ) {
            var cast: AttributeType?
            var handsType = false
            var keepsOldType = false
            if previous.type != attribute.type {
                if previous.type.isNumeric && attribute.type.isNumeric {
                    (cast, keepsOldType) = planConversion(attribute, from: previous)
                } else if stepsPending {
                    handsType = true
                } else {
                    refusals.append(
                        "\(entity.name): attribute '\(attribute.name)' changed type from \(previous.type) to \(attribute.type); only numeric types (integers, Double, Float) are converted automatically, convert the values in a MigrationPlan step"
                    )
                }
            }

            var fallback: SQLValue?
            var handsNull = false
            var filledPerRow = false
            if previous.isOptional && !attribute.isOptional {
                if perRow {
                    filledPerRow = true
                } else if let value = usableDefault {
                    fallback = value
                } else if stepsPending {
                    handsNull = true
                } else {
                    checks.append(.noNulls(table: old.name, column: previous.name, entity: entity.name, attribute: attribute.name))
                }
            }

            var spec = ColumnSpec(attribute.schema)
            if filledPerRow { spec.isOptional = true }
            direct.append(TargetColumn(spec: spec, source: .column(previous.name, cast: cast, fallback: fallback)))
            var loose = spec
            if handsType { loose.type = nil }
            if keepsOldType { loose.type = previous.type }
            if handsNull { loose.isOptional = true }
            interim.append(TargetColumn(spec: loose, source: .column(previous.name, cast: nil, fallback: fallback)))
            if handsType || handsNull {
                handed.append(HandedColumn(name: attribute.name, type: attribute.type, isOptional: attribute.isOptional, convertsType: handsType))
            }
        }

        /// Plans a numeric (or `Bool`) conversion: the `CAST` of the direct
        /// shape, and whether the interim shape keeps the old type (the steps
        /// see the old values; the check and the conversion come after them).
        /// Within one storage class (Int64 → Int8, Double → Float) the stored
        /// values need no conversion, only the check.
        private mutating func planConversion(
            _ attribute: AttributeDescription, from previous: AttributeSchema
        ) -> (cast: AttributeType?, keepsOldType: Bool) {
            let converts = previous.type.columnType != attribute.type.columnType
            let checked = !attribute.type.holdsEveryValue(of: previous.type)
            if stepsPending {
                if converts { castsAfterSteps[attribute.name] = attribute.type }
                if checked {
                    postStepChecks.append(
                        .converts(table: entity.name, column: attribute.name, entity: entity.name, attribute: attribute.name, from: previous.type, to: attribute.type))
                }
                return (nil, converts)
            }
            if checked {
                checks.append(.converts(table: old.name, column: previous.name, entity: entity.name, attribute: attribute.name, from: previous.type, to: attribute.type))
            }
            return (converts ? attribute.type : nil, false)
        }

        /// Plans the foreign-key columns of the to-one relationships (to-ones
        /// are columns too): kept, renamed, or added empty; a to-one that was
        /// another kind of relationship is refused.
        mutating func addToOneRelationships(refusals: inout [String]) {
            for index in entity.toOneIndexes {
                let relationship = entity.relationships[index]
                let spec = ColumnSpec.foreignKey(relationship.name, references: relationship.destinationName)
                let previous = names.storedRelationship(relationship.name, of: entity.name).flatMap(old.relationship(named:))
                guard let stored = previous else {
                    direct.append(TargetColumn(spec: spec, source: .value(.null)))
                    interim.append(TargetColumn(spec: spec, source: .value(.null)))
                    continue
                }
                let destination = names.newEntity(forStored: stored.destination) ?? stored.destination
                if stored.isToMany || destination != relationship.destinationName {
                    refusals.append(
                        "\(entity.name): relationship '\(relationship.name)' changed from \(stored.isToMany ? "to-many" : "to-one") of \(destination) to to-one of \(relationship.destinationName); LiteRecord cannot infer how to move the links. Declare a new relationship (another name), copy the links in a MigrationPlan step, then remove the old one with `.removeRelationship`"
                    )
                    continue
                }
                matched.insert(stored.name)
                direct.append(TargetColumn(spec: spec, source: .copy(stored.name)))
                interim.append(TargetColumn(spec: spec, source: .copy(stored.name)))
            }
        }

        /// Refuses each stored to-one that became a to-many.
        func refuseToManyChanges(refusals: inout [String]) {
            for relationship in entity.relationships where relationship.isToMany {
                if let stored = names.storedRelationship(relationship.name, of: entity.name).flatMap(old.relationship(named:)),
                    !stored.isToMany
                {
                    refusals.append(
                        "\(entity.name): relationship '\(relationship.name)' changed from to-one to to-many; LiteRecord cannot infer how to move the links. Declare a new relationship (another name), copy the links in a MigrationPlan step, then remove the old one with `.removeRelationship`"
                    )
                }
            }
        }

        /// Keeps in the interim shape the stored columns the new model drops,
        /// so that a step can move their values elsewhere; a name that clashes
        /// (ignoring case) with a new column cannot stay.
        mutating func keepRemovedColumns(of current: [ColumnSpec]) {
            let newNames = Set(entity.attributes.map { $0.name.lowercased() })
            for column in current where !matched.contains(column.name) && !newNames.contains(column.name.lowercased()) {
                interim.append(TargetColumn(spec: column, source: .copy(column.name)))
            }
        }
    }
}

extension AttributeType {
    /// The values an integer type (or `Bool`) holds, as stored in SQLite's
    /// 64-bit integers; `nil` for other types.
    var integerRange: ClosedRange<Int64>? {
        switch self {
        case .bool: 0...1
        case .int, .int64: Int64.min...Int64.max
        case .int8: Int64(Int8.min)...Int64(Int8.max)
        case .int16: Int64(Int16.min)...Int64(Int16.max)
        case .int32: Int64(Int32.min)...Int64(Int32.max)
        case .uint8: 0...Int64(UInt8.max)
        case .uint16: 0...Int64(UInt16.max)
        case .uint32: 0...Int64(UInt32.max)
        case .uint, .uint64: 0...Int64.max
        default: nil
        }
    }

    /// Whether a stored numeric value reads back as this type with exactly
    /// its value: an integer in range, a `Double` that is such an integer, an
    /// integer a `Double` or `Float` holds without rounding, a `Double` a
    /// `Float` holds. `NULL` always; text and blobs never (`CAST` would turn
    /// them into 0).
    func holdsExactly(_ value: SQLValue) -> Bool {
        switch value {
        case .null:
            return true
        case .integer(let integer):
            if let range = integerRange { return range.contains(integer) }
            if self == .double { return Double(exactly: integer) != nil }
            if self == .float { return Float(exactly: integer) != nil }
            return false
        case .real(let real):
            if let range = integerRange { return Int64(exactly: real).map(range.contains) ?? false }
            if self == .double { return true }
            if self == .float { return real.isInfinite || Float(exactly: real) != nil }
            return false
        default:
            return false
        }
    }

    /// Whether every value of `old` is a value of this type, so that a
    /// conversion needs no look at the stored values: a wider integer range,
    /// `Float` → `Double`, and integers within 2^24 (`Float`) or 2^53
    /// (`Double`), which those hold exactly.
    func holdsEveryValue(of old: AttributeType) -> Bool {
        if old == .float { return self == .double || self == .float }
        guard let oldRange = old.integerRange else { return false }
        if let range = integerRange { return range.contains(oldRange.lowerBound) && range.contains(oldRange.upperBound) }
        let exact: Int64 = self == .double ? 1 << 53 : self == .float ? 1 << 24 : 0
        return oldRange.lowerBound >= -exact && oldRange.upperBound <= exact
    }

    /// The storage classes (`typeof`) a column of this type holds once its
    /// affinity has applied (https://sqlite.org/datatype3.html#type_affinity).
    var storageClasses: [String] {
        switch columnType {
        case "INTEGER": ["integer"]
        case "REAL": ["real"]
        case "BLOB": ["blob"]
        default: ["text"]
        }
    }
}

extension Connection {
    /// The integer result of a `COUNT(*)` query.
    func count(_ sql: String, _ arguments: [SQLValue] = []) throws -> Int64 {
        let statement = try makeStatement(sql)
        defer { statement.finalize() }
        try statement.bind(arguments)
        guard try statement.step(), case .integer(let count) = statement.value(at: 0) else { return 0 }
        return count
    }

    /// Runs a statement once with bound arguments, without keeping it in the
    /// statement cache: migration statements never run twice.
    func executeOnce(_ sql: String, _ arguments: [SQLValue] = []) throws {
        let statement = try makeStatement(sql)
        defer { statement.finalize() }
        try statement.bind(arguments)
        try statement.run()
    }

    /// The text values of the first column of a query.
    func strings(_ sql: String, _ arguments: [SQLValue] = []) throws -> [String] {
        let statement = try makeStatement(sql)
        defer { statement.finalize() }
        try statement.bind(arguments)
        var values: [String] = []
        while try statement.step() {
            if case .text(let text) = statement.value(at: 0) { values.append(text) }
        }
        return values
    }
}
