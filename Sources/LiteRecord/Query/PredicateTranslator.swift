import Foundation

/// A `PredicateExpressions` node that has an exact SQL translation.
///
/// Conformances are unconditional; children are translated through
/// ``PredicateTranslator/translate(_:)``, which dynamically finds their
/// conformance and names any child that has none.
protocol SQLTranslatable: SendableMetatype {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment
    /// Adds to `walker` what this node's translation depends on beyond its
    /// type (an operator, a key path, a captured value) and walks its
    /// children in the order ``sqlFragment(_:)`` translates them; `false`
    /// when a predicate holding this node is not to be kept translated (see
    /// ``PredicateShapeWalker``).
    func walkShape(_ walker: inout PredicateShapeWalker) -> Bool
    /// Whether the node type is a ``ConstantExpression``. Asked of the type
    /// the translator already has in hand: `node is any ConstantExpression`
    /// would search the runtime's conformance tables the first time a process
    /// meets each node type (a third of a million instructions each, in the
    /// first query after launch).
    static var isConstantExpression: Bool { get }
}

extension SQLTranslatable {
    /// Nodes that do not describe their shape are translated every time.
    func walkShape(_ walker: inout PredicateShapeWalker) -> Bool { false }
    static var isConstantExpression: Bool { false }
}

extension SQLTranslatable where Self: ConstantExpression {
    static var isConstantExpression: Bool { true }
}

/// A node whose value does not depend on the object being tested (a captured
/// value, or a key path applied to one).
protocol ConstantExpression {
    var constantValue: Any? { get }
}

/// Gives a `PredicateExpressions.Variable` of any type its identity.
protocol VariableExpression {
    var variableID: PredicateExpressions.VariableID { get }
}

/// Turns a Foundation `Predicate` over an entity into a parameterized SQL
/// condition that selects exactly the rows for which `predicate.evaluate`
/// returns `true` — or throws `.unsupportedPredicate` naming the part that
/// has no exact translation. It never guesses.
final class PredicateTranslator {
    enum Binding {
        /// The predicate's input: the object whose attributes are columns.
        case entity
        /// A closure variable (`flatMap`'s), bound to the SQL of its value.
        case value(SQLFragment)
    }

    let entityName: String
    let rootType: any Entity.Type
    /// The store's model: how relationships are stored.
    let model: Model
    /// The variables in scope, innermost last: the predicate's own, then a
    /// closure's while its body is translated. A list, not a dictionary: a
    /// predicate binds one or two, and a dictionary keyed by `VariableID` costs
    /// the first query after launch a search of the runtime's conformance
    /// tables (for `VariableID: Hashable`).
    private var bindings: [(variable: PredicateExpressions.VariableID, binding: Binding)] = []
    /// How many `json_each` subqueries have been named so far.
    private var eachCount = 0
    /// How many tables of relationship subqueries have been named so far.
    private var aliasCount = 0
    private let expression: any StandardPredicateExpression<Bool>
    /// While a predicate is translated to be kept (see ``PredicateCache``):
    /// each captured value met, in order; the fragments bind placeholders
    /// naming them instead of the values.
    var recordedConstants: [PredicateCache.RecordedConstant]?

    init<T: Entity>(_ predicate: Predicate<T>, model: Model) {
        entityName = T.entityName
        rootType = T.self
        self.model = model
        expression = predicate.expression
        bindings.append((predicate.variable.key, .entity))
    }

    /// The `WHERE` condition and its arguments.
    func translate() throws(LiteRecordError) -> SQLFragment {
        let fragment = try translate(expression)
        guard fragment.kind == .bool, !fragment.isOptional else {
            throw unsupported(expression, "the predicate does not produce a Bool")
        }
        return fragment
    }

    /// Translates one node of the expression tree.
    func translate(_ expression: Any) throws(LiteRecordError) -> SQLFragment {
        // `as? any SQLTranslatable` looks the conformance up in the runtime's
        // tables on every call, a large share of translating a small
        // predicate; the types of a query's nodes repeat from one query to the
        // next, so each type's way in is kept.
        let translate = try Self.translators.value(for: ObjectIdentifier(type(of: expression))) {
            () throws(LiteRecordError) -> NodeTranslator in
            guard let node = expression as? any SQLTranslatable else {
                throw unsupported(expression, Self.reason(forUntranslatable: expression))
            }
            return Self.translator(for: node)
        }
        return try translate.run(expression, self)
    }

    /// How to translate a node of one concrete type.
    struct NodeTranslator: Sendable {
        let run: @Sendable (Any, PredicateTranslator) throws(LiteRecordError) -> SQLFragment
        /// The node's ``SQLTranslatable/walkShape(_:)``.
        let walkShape: @Sendable (Any, inout PredicateShapeWalker) -> Bool
        /// The node is a ``ConstantExpression``.
        let isConstant: Bool
    }

    /// The translator kept for `expression`'s type, or `nil` when the type
    /// has no SQL translation.
    static func nodeTranslator(for expression: Any) -> NodeTranslator? {
        struct Untranslatable: Error {}
        return try? translators.value(for: ObjectIdentifier(type(of: expression))) {
            () throws(Untranslatable) -> NodeTranslator in
            guard let node = expression as? any SQLTranslatable else { throw Untranslatable() }
            return translator(for: node)
        }
    }

    /// The node translators by node type. Node types are the generic
    /// `PredicateExpressions` types of the queries an app makes: a bounded set.
    private static let translators = MemoTable<ObjectIdentifier, NodeTranslator>()

    private static func translator<Node: SQLTranslatable>(for node: Node) -> NodeTranslator {
        NodeTranslator(
            run: { expression, translator throws(LiteRecordError) in
                // A cast to the concrete type compares metadata; no table lookup.
                // (It cannot fail: the translator is kept under this very type.)
                guard let node = expression as? Node else {
                    throw translator.unsupported(expression, "its type changed between lookups")
                }
                return try node.sqlFragment(translator)
            },
            walkShape: { expression, walker in
                guard let node = expression as? Node else { return false }
                return node.walkShape(&walker)
            },
            isConstant: Self.isConstant(node))
    }

    private static func isConstant<Node: SQLTranslatable>(_ node: Node) -> Bool {
        // Debug builds (every test) check the requirement against the cast it replaces.
        assert(Node.isConstantExpression == (node is any ConstantExpression), "\(Node.self): isConstantExpression is wrong")
        return Node.isConstantExpression
    }

    /// Runs `body` with a closure variable bound to the SQL of its value.
    func with<R>(
        _ variable: PredicateExpressions.VariableID, boundTo value: SQLFragment,
        _ body: () throws(LiteRecordError) -> R
    ) throws(LiteRecordError) -> R {
        // The innermost binding of a variable is the one in force, as a
        // dictionary's overwrite (and restore on the way out) made it.
        bindings.append((variable, .value(value)))
        defer { bindings.removeLast() }
        return try body()
    }

    func binding(of variable: PredicateExpressions.VariableID) -> Binding? {
        bindings.last { $0.variable == variable }?.binding
    }

    /// A fresh alias for a `json_each` table in a subquery.
    func nextEachAlias() -> String {
        eachCount += 1
        return "literecord_each\(eachCount)"
    }

    /// A fresh alias for a table read in a relationship's subquery.
    func nextAlias() -> String {
        aliasCount += 1
        return "literecord_r\(aliasCount)"
    }

    // MARK: Errors

    /// `.unsupportedPredicate` naming the expression (its node type, without the
    /// generic noise) and why it has no exact SQL translation.
    func unsupported(_ expression: Any, _ reason: String) -> LiteRecordError {
        LiteRecordError(
            .unsupportedPredicate,
            "cannot translate \(Self.name(of: expression)) in a predicate on \(entityName) to SQL: \(reason)")
    }

    /// `PredicateExpressions.ForcedUnwrap<…>` becomes `ForcedUnwrap`; key paths
    /// are shown as written (`\Person.nickname`).
    static func name(of expression: Any) -> String {
        if let keyPath = expression as? AnyKeyPath {
            let written = "\(keyPath)"
            // Outside Apple platforms a computed property's key path prints as
            // `\String.<computed 0x… (UTF8View)>`; its types say more.
            guard written.contains("<computed") else { return "`\(written)`" }
            let keyPathType = type(of: keyPath)
            return "a key path from \(keyPathType.rootType) to \(keyPathType.valueType)"
        }
        let full = String(reflecting: type(of: expression))
        let base = full.split(separator: "<", maxSplits: 1).first.map(String.init) ?? full
        let last = base.split(separator: ".").last.map(String.init) ?? base
        return "`\(last)`"
    }

    private static func reason(forUntranslatable expression: Any) -> String {
        let name = name(of: expression).trimmingCharacters(in: CharacterSet(charactersIn: "`"))
        switch name {
        case "ForcedUnwrap":
            return "force-unwrapping (`!`) throws for nil values; use `??` or optional chaining instead"
        case "ConditionalCast", "ForceCast", "TypeCheck":
            return "type casts and type checks have no SQL equivalent"
        case "SequenceMaximum", "SequenceMinimum", "Filter":
            return "only contains, contains(where:), allSatisfy, count and isEmpty of a stored collection are translated; compute the value outside the predicate and capture it"
        case "CollectionIndexSubscript", "CollectionRangeSubscript", "DictionaryKeySubscript",
            "DictionaryKeyDefaultValueSubscript":
            return "subscripts are not translated; read the element outside the predicate and capture it"
        case "StringContainsRegex", "PredicateRegex":
            return "regular expressions cannot run in SQL"
        case "PredicateEvaluate", "ExpressionEvaluate":
            return "nested predicates and expressions are not translated; write the condition inline"
        default:
            return "LiteRecord has no exact SQL translation for it"
        }
    }
}
