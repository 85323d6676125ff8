import Foundation

/// Translated predicates, kept by shape, so that a query made again with
/// other captured values (`#Predicate { $0.age >= lower }` in a loop) costs
/// a walk of its expression tree instead of a translation.
///
/// A predicate's *shape* is what its SQL text depends on: the type of its
/// expression tree (every node's type, so the nesting, the operand order and
/// the value types), the operators and key paths stored in the nodes, and
/// which captured values are `nil` or name which entity (checked against the
/// kept translation, see ``Template/arguments(for:)``). Captured values are
/// placeholders in the kept SQL and are encoded afresh on every use.
///
/// Only predicates made of nodes that describe their shape
/// (``SQLTranslatable/walkShape(_:)``: comparisons, `&&`, `||`, `!`, `?:`,
/// `??`, `+ - *`, key paths and captured values) are kept; a translation
/// whose arguments are not all plain captured values (a value bound again
/// as the other side is stored) is marked and translated
/// every time, exactly as without the cache.
final class PredicateCache: Sendable {
    /// A captured value met while translating, as the translation encoded it.
    struct RecordedConstant: Sendable {
        let kind: ValueKind
        let encoded: SQLValue
    }

    /// A kept translation.
    struct Template: Sendable {
        let sql: String
        /// Every captured value the translation met, in walk order: its kind,
        /// and whether it was `nil` (what the kept SQL depends on; the value
        /// itself is not kept).
        let constants: [(kind: ValueKind, isNull: Bool)]
        /// For each `?` of `sql`, in order: the index of its captured value.
        let arguments: [Int]

        /// The arguments for `values` (captured values in walk order), or
        /// `nil` when one of them would be translated differently (a `nil`
        /// where the kept one was not, a record id of another entity, a
        /// value with no stored form): then the predicate is translated.
        func arguments(for values: [Any]) -> [SQLValue]? {
            guard values.count == constants.count else { return nil }
            var encoded: [SQLValue] = []
            encoded.reserveCapacity(values.count)
            for (value, recorded) in zip(values, constants) {
                // The common captured Int without the casts to protocols that
                // `encode` starts with (an Int is stored as itself).
                if case .integer = recorded.kind, !recorded.isNull, let int = value as? Int {
                    encoded.append(.integer(Int64(int)))
                    continue
                }
                if case .recordID(let entityName) = recorded.kind,
                    PredicateTranslator.recordIDEntity(of: value) != entityName
                {
                    return nil
                }
                guard let value = recorded.kind.encode(value), value.isNull == recorded.isNull else {
                    return nil
                }
                encoded.append(value)
            }
            return arguments.map { encoded[$0] }
        }
    }

    enum Entry: Sendable {
        case template(Template)
        /// The shape's translation depends on more than its captured values'
        /// encodings: translated every time.
        case translatedEachTime
    }

    /// At most this many shapes are kept (then the table starts over): shapes
    /// are the predicates written in an app's source, a bounded set, but key
    /// paths could be made at run time.
    static let limit = 256

    private let entries = PredicateShapeTable(limit: PredicateCache.limit)

    /// The `WHERE` condition and arguments for `predicate`, from the kept
    /// translation of its shape when there is one.
    func condition<T: Entity>(
        _ predicate: Predicate<T>, model: Model
    ) throws(LiteRecordError) -> (sql: String, arguments: [SQLValue]) {
        var walker = PredicateShapeWalker(predicate)
        if walker.visit(predicate.expression) {
            let entry = try entries.value(for: walker.shape) { () throws(LiteRecordError) -> Entry in
                try Self.entry(for: predicate, model: model, values: walker.values)
            }
            if case .template(let template) = entry, let arguments = template.arguments(for: walker.values) {
                return (template.sql, arguments)
            }
        }
        let condition = try PredicateTranslator(predicate, model: model).translate()
        return (condition.sql, condition.arguments)
    }

    /// The number of shapes kept (for tests).
    var count: Int { entries.count }

    /// Translates `predicate` with placeholders for its captured values.
    private static func entry<T: Entity>(
        for predicate: Predicate<T>, model: Model, values: [Any]
    ) throws(LiteRecordError) -> Entry {
        let translator = PredicateTranslator(predicate, model: model)
        translator.recordedConstants = []
        let condition = try translator.translate()
        let constants = translator.recordedConstants ?? []
        // The walk must meet the captured values the translation met, in the
        // same order; anything else is translated every time.
        guard constants.count == values.count else { return .translatedEachTime }
        for (value, recorded) in zip(values, constants) where recorded.kind.encode(value) != recorded.encoded {
            return .translatedEachTime
        }
        var arguments: [Int] = []
        for argument in condition.arguments {
            guard let index = placeholderIndex(argument), index < constants.count else { return .translatedEachTime }
            arguments.append(index)
        }
        return .template(
            Template(sql: condition.sql, constants: constants.map { ($0.kind, $0.encoded.isNull) }, arguments: arguments))
    }

    // MARK: Placeholders

    /// Placeholder text no captured value can hold: it starts with a NUL and
    /// carries a number drawn when the process started.
    private static let placeholderPrefix = "\u{0}literecord-captured-\(UInt64.random(in: .min ... .max))-"

    /// The placeholder bound, while a kept translation is made, for the
    /// `index`th captured value.
    static func placeholder(_ index: Int) -> SQLValue {
        .text(placeholderPrefix + String(index))
    }

    private static func placeholderIndex(_ value: SQLValue) -> Int? {
        guard case .text(let text) = value, text.hasPrefix(placeholderPrefix) else { return nil }
        return Int(text.dropFirst(placeholderPrefix.count))
    }
}

/// The key of a kept translation (see ``PredicateCache``).
// Key paths are immutable; those in a shape come from a `Predicate`, which is
// Sendable, and are only compared and hashed.
struct PredicateShape: Hashable, @unchecked Sendable {
    /// The type of the expression tree: every node's type, nested.
    let expressionType: ObjectIdentifier
    /// Operators and markers, in walk order.
    var tokens: [Int] = []
    /// Key paths applied to the object, in walk order.
    var keyPaths: [AnyKeyPath] = []
}

/// The kept entries by shape: a dictionary by the expression's type, then
/// the shapes of that type in a list (a few: the key paths and operators
/// that one expression type is written with), with ``MemoTable``'s
/// behaviour otherwise. Not a `[PredicateShape: Entry]`: a dictionary keyed
/// by `PredicateShape` asks the runtime, when it is made with the model, for
/// `PredicateShape: Hashable`, a search of its conformance tables (0.4M
/// instructions of opening any store); `ObjectIdentifier`'s is asked anyway.
final class PredicateShapeTable: Sendable {
    private typealias Bucket = [(shape: PredicateShape, entry: PredicateCache.Entry)]
    private let storage = Locked<(buckets: [ObjectIdentifier: Bucket], count: Int)>(([:], 0))
    /// When the table holds this many entries it starts over.
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// The number of entries kept.
    var count: Int { storage.withLock { $0.count } }

    /// The entry kept for `shape`, or `make()`'s, kept now. `make` runs
    /// outside the lock (two threads may both make an entry; either is kept).
    func value<Failure: Error>(
        for shape: PredicateShape, _ make: () throws(Failure) -> PredicateCache.Entry
    ) throws(Failure) -> PredicateCache.Entry {
        let known = storage.withLock { table in
            table.buckets[shape.expressionType]?.first { $0.shape == shape }?.entry
        }
        if let known { return known }
        let made = try make()
        storage.withLock { table in
            if table.count >= limit { table = ([:], 0) }
            var bucket = table.buckets[shape.expressionType] ?? []
            if let index = bucket.firstIndex(where: { $0.shape == shape }) {
                bucket[index].entry = made
            } else {
                bucket.append((shape, made))
                table.count += 1
            }
            table.buckets[shape.expressionType] = bucket
        }
        return made
    }
}

/// Walks a predicate's expression tree for its ``PredicateShape`` and its
/// captured values, in the order the translator meets them.
struct PredicateShapeWalker {
    private(set) var shape: PredicateShape
    /// The captured values (and key paths applied to captured values), in
    /// the order the translator binds them.
    private(set) var values: [Any] = []
    private let root: PredicateExpressions.VariableID

    init<T: Entity>(_ predicate: Predicate<T>) {
        shape = PredicateShape(expressionType: ObjectIdentifier(type(of: predicate.expression)))
        root = predicate.variable.key
    }

    /// Walks `node`; `false` when a node in it does not describe its shape.
    mutating func visit(_ node: Any) -> Bool {
        guard let translator = PredicateTranslator.nodeTranslator(for: node) else { return false }
        return translator.walkShape(node, &self)
    }

    mutating func visit(_ first: Any, _ second: Any) -> Bool {
        visit(first) && visit(second)
    }

    mutating func token(_ token: Int) {
        shape.tokens.append(token)
    }

    mutating func captured(_ value: Any) {
        shape.tokens.append(-1)
        values.append(value)
    }

    mutating func keyPath(_ keyPath: AnyKeyPath) {
        shape.tokens.append(-2)
        shape.keyPaths.append(keyPath)
    }

    /// Only the predicate's own variable (the object) is walked; closure
    /// variables come with nodes that are not.
    mutating func variable(_ key: PredicateExpressions.VariableID) -> Bool {
        key == root
    }
}

// MARK: Shapes of the nodes

extension PredicateExpressions.Value {
    func walkShape(_ walker: inout PredicateShapeWalker) -> Bool {
        walker.captured(value)
        return true
    }
}

extension PredicateExpressions.NilLiteral {
    func walkShape(_ walker: inout PredicateShapeWalker) -> Bool { true }
}

extension PredicateExpressions.Variable {
    func walkShape(_ walker: inout PredicateShapeWalker) -> Bool {
        walker.variable(key)
    }
}

extension PredicateExpressions.KeyPath {
    func walkShape(_ walker: inout PredicateShapeWalker) -> Bool {
        // As `sqlFragment`: a key path on a captured value is a captured value.
        // (Only a captured root can make one: the cast in `constantValue`
        // would search the conformance tables for every other root.)
        if PredicateTranslator.nodeTranslator(for: root)?.isConstant == true, let value = constantValue {
            walker.captured(value)
            return true
        }
        walker.keyPath(keyPath)
        return walker.visit(root)
    }
}

extension PredicateExpressions.Equal {
    func walkShape(_ walker: inout PredicateShapeWalker) -> Bool { walker.visit(lhs, rhs) }
}

extension PredicateExpressions.NotEqual {
    func walkShape(_ walker: inout PredicateShapeWalker) -> Bool { walker.visit(lhs, rhs) }
}

extension PredicateExpressions.Comparison {
    func walkShape(_ walker: inout PredicateShapeWalker) -> Bool {
        let token =
            switch op {
            case .lessThan: 1
            case .lessThanOrEqual: 2
            case .greaterThan: 3
            case .greaterThanOrEqual: 4
            }
        walker.token(token)
        return walker.visit(lhs, rhs)
    }
}

extension PredicateExpressions.Conjunction {
    func walkShape(_ walker: inout PredicateShapeWalker) -> Bool { walker.visit(lhs, rhs) }
}

extension PredicateExpressions.Disjunction {
    func walkShape(_ walker: inout PredicateShapeWalker) -> Bool { walker.visit(lhs, rhs) }
}

extension PredicateExpressions.Negation {
    func walkShape(_ walker: inout PredicateShapeWalker) -> Bool { walker.visit(wrapped) }
}

extension PredicateExpressions.Conditional {
    func walkShape(_ walker: inout PredicateShapeWalker) -> Bool {
        walker.visit(test) && walker.visit(trueBranch, falseBranch)
    }
}

extension PredicateExpressions.NilCoalesce {
    func walkShape(_ walker: inout PredicateShapeWalker) -> Bool { walker.visit(lhs, rhs) }
}

extension PredicateExpressions.Arithmetic {
    func walkShape(_ walker: inout PredicateShapeWalker) -> Bool {
        let token =
            switch op {
            case .add: 1
            case .subtract: 2
            case .multiply: 3
            }
        walker.token(token)
        return walker.visit(lhs, rhs)
    }
}
