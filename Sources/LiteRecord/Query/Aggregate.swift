/// An aggregate function computed by SQLite over one attribute: `.sum`,
/// `.min`, `.max`, `.average` or `.count`. Its result type follows from the
/// attribute's type, so `aggregate(.sum, of: \.age)` is an `Int` and
/// `aggregate(.average, of: \.age)` a `Double?`.
///
/// ```swift
/// let total = try Person.aggregate(.sum, of: \.age, in: context)              // Int
/// let oldest = try Person.aggregate(.max, of: \.age, in: context)             // Int?
/// let mean = try Person.aggregate(.average, of: \.score, in: context)         // Double?
/// let named = try Person.aggregate(.count, of: \.nickname, in: context)       // Int, nils not counted
/// ```
///
/// Optional attributes are aggregated over their non-nil values, as SQL does.
/// Text is ordered as `SortDescriptor` orders it for `String`.
public struct Aggregate<Value, Result>: Sendable {
    let function: AggregateFunction
    let decode: @Sendable (SQLValue) throws(LiteRecordError) -> Result

    init(_ function: AggregateFunction, decode: @escaping @Sendable (SQLValue) throws(LiteRecordError) -> Result) {
        self.function = function
        self.decode = decode
    }
}

extension Aggregate where Value: BinaryInteger & AttributeValue & SendableMetatype, Result == Value {
    /// The sum of the values (0 when there are none). An overflow of SQLite's
    /// 64-bit integers, or of `Value`, throws instead of wrapping.
    public static var sum: Self { Self(.sum, decode: decodeSum) }

    @Sendable static func decodeSum(_ value: SQLValue) throws(LiteRecordError) -> Value {
        try decodeValue(Value.self, value.isNull ? .integer(0) : value, "sum")
    }
}

extension Aggregate where Value: BinaryFloatingPoint & AttributeValue & SendableMetatype, Result == Value {
    /// The sum of the values (0 when there are none), added by SQLite in
    /// double precision.
    public static var sum: Self { Self(.sum, decode: decodeSum) }

    @Sendable static func decodeSum(_ value: SQLValue) throws(LiteRecordError) -> Value {
        try decodeValue(Value.self, value.isNull ? .real(0) : value, "sum")
    }
}

extension Aggregate where Value: Comparable & AttributeValue & SendableMetatype, Result == Value? {
    /// The smallest value, or `nil` when there are none.
    public static var min: Self { Self(.min, decode: decodeMinimum) }

    /// The largest value, or `nil` when there are none.
    public static var max: Self { Self(.max, decode: decodeMaximum) }

    @Sendable static func decodeMinimum(_ value: SQLValue) throws(LiteRecordError) -> Value? {
        value.isNull ? nil : try decodeValue(Value.self, value, "minimum")
    }

    @Sendable static func decodeMaximum(_ value: SQLValue) throws(LiteRecordError) -> Value? {
        value.isNull ? nil : try decodeValue(Value.self, value, "maximum")
    }
}

extension Aggregate where Value: BinaryInteger, Result == Double? {
    /// The arithmetic mean, or `nil` when there are no values.
    public static var average: Self { Self(.average, decode: decodeAverage) }
}

extension Aggregate where Value: BinaryFloatingPoint, Result == Double? {
    /// The arithmetic mean, or `nil` when there are no values.
    public static var average: Self { Self(.average, decode: decodeAverage) }
}

extension Aggregate where Result == Int {
    /// The number of (non-nil) values.
    public static var count: Self { Self(.count, decode: decodeCount) }

    @Sendable static func decodeCount(_ value: SQLValue) throws(LiteRecordError) -> Int {
        if case .integer(let count) = value { return Int(count) }
        return 0
    }
}

private func decodeValue<V: AttributeValue>(_ type: V.Type, _ value: SQLValue, _ what: String) throws(LiteRecordError) -> V {
    do {
        return try V(sqlValue: value)
    } catch {
        throw LiteRecordError(.decodingFailed, "the \(what) (\(value)) does not fit in \(V.self)")
    }
}

@Sendable private func decodeAverage(_ value: SQLValue) throws(LiteRecordError) -> Double? {
    switch value {
    case .real(let average): average
    case .integer(let average): Double(average)
    default: nil
    }
}

/// The SQL aggregate behind an ``Aggregate``.
enum AggregateFunction: String, Sendable {
    case sum, min, max, average, count

    func sql(_ column: String, kind: ValueKind) -> String {
        switch self {
        case .sum: "SUM(\(column))"
        case .average: "AVG(\(column))"
        case .count: "COUNT(\(column))"
        case .min: "MIN(\(column)\(kind.orderCollation))"
        case .max: "MAX(\(column)\(kind.orderCollation))"
        }
    }
}
