/// A translated piece of a predicate: SQL text with its bound arguments (in
/// the order of the `?` in the text) and what the Swift value it computes is.
///
/// Every fragment is atomic in SQL (a column, a `?`, a function call or a
/// parenthesized expression), so fragments can be pasted into each other
/// without precedence surprises.
struct SQLFragment {
    var sql: String
    var arguments: [SQLValue]
    var kind: ValueKind
    /// The Swift value is an `Optional`; SQL `NULL` is its `nil`. A fragment that
    /// is not optional never evaluates to `NULL`, which is what keeps SQL's
    /// three-valued logic from ever showing.
    var isOptional: Bool
    /// Evaluating the fragment can raise an error (checked arithmetic), so it
    /// must only run where Swift would evaluate it.
    var mayFail: Bool
    /// For an entity object or a to-many relationship (whose `sql` is the row
    /// id of the object, or of the relationship's owner): how to reach the
    /// rows behind it.
    var reference: RelationReference?
    /// The SQL of a row id this fragment reads its value by (a scalar
    /// subquery by primary key): the fragment is `NULL` whenever that is.
    var readsRow: String?
    /// For a captured value bound as `?`: the value, so that it can be bound
    /// again as the other side of a comparison is stored (a captured
    /// ``RecordID`` beside one kept in an attribute is its JSON text there).
    var constant: Any?

    init(
        _ sql: String, _ arguments: [SQLValue] = [], kind: ValueKind, isOptional: Bool = false, mayFail: Bool = false,
        reference: RelationReference? = nil
    ) {
        self.sql = sql
        self.arguments = arguments
        self.kind = kind
        self.isOptional = isOptional
        self.mayFail = mayFail
        self.reference = reference
    }

    /// This captured value bound as values of `kind` are stored, or `nil`
    /// when it is not a captured value or has no such stored form.
    func recoded(as kind: ValueKind) -> SQLFragment? {
        // A row id alone would drop the captured RecordID's entity.
        if case .recordID = kind { return nil }
        guard let constant, let encoded = kind.encode(constant), !encoded.isNull else { return nil }
        var fragment = SQLFragment("?", [encoded], kind: kind, isOptional: isOptional)
        fragment.constant = constant
        return fragment
    }

    /// The literal `NULL` of `nil` and `NilLiteral`.
    var isNullLiteral: Bool { sql == "NULL" }

    /// A Boolean fragment built from parts, in order: strings are SQL text,
    /// fragments contribute their text and arguments.
    static func bool(_ parts: [Part]) -> SQLFragment {
        combine(parts, kind: .bool, isOptional: false)
    }

    static func combine(_ parts: [Part], kind: ValueKind, isOptional: Bool) -> SQLFragment {
        var sql = ""
        var arguments: [SQLValue] = []
        var mayFail = false
        for part in parts {
            switch part {
            case .text(let text):
                sql += text
            case .fragment(let fragment):
                sql += fragment.sql
                arguments += fragment.arguments
                mayFail = mayFail || fragment.mayFail
            }
        }
        return SQLFragment(sql, arguments, kind: kind, isOptional: isOptional, mayFail: mayFail)
    }

    enum Part: ExpressibleByStringLiteral, ExpressibleByStringInterpolation {
        case text(String)
        case fragment(SQLFragment)

        init(stringLiteral value: String) { self = .text(value) }
    }
}

extension SQLFragment.Part {
    static func sql(_ fragment: SQLFragment) -> Self { .fragment(fragment) }
}
