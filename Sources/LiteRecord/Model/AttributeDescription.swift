/// One stored property of an entity: its name, how it is stored, and its
/// options. The `@Entity` macro writes these; a hand-written entity lists them
/// in ``Entity/attributes``.
///
/// ```swift
/// static let attributes = [
///     AttributeDescription("name", type: .string),
///     AttributeDescription("email", type: .string, isOptional: true, options: [.unique]),
/// ]
/// ```
public struct AttributeDescription: Sendable, CustomStringConvertible {
    /// Options that change how the column is indexed.
    public struct Options: OptionSet, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// No two records may hold the same value (a unique index).
        public static let unique = Options(rawValue: 1 << 0)
        /// Queries on this attribute use an index.
        public static let indexed = Options(rawValue: 1 << 1)
        /// The attribute's text is in the entity's full-text index, which
        /// ``Entity/search(_:matching:sortBy:limit:offset:in:)`` queries.
        /// Only for `String` and `String?` attributes.
        ///
        /// ```swift
        /// @Attribute(.searchable) var title = ""
        /// ```
        public static let searchable = Options(rawValue: 1 << 2)

        /// ``searchable`` with a weight for ranking: a match in an attribute
        /// of weight 2 counts twice as much as one in an attribute of weight
        /// 1 (the default). The `@Entity` macro reads the weight from the
        /// literal; a hand-written entity passes it as
        /// ``AttributeDescription/searchWeight``. Changing a weight needs no
        /// migration: it only changes the order of results.
        ///
        /// ```swift
        /// @Attribute(.searchable(weight: 3)) var title = ""
        /// ```
        public static func searchable(weight: Double) -> Options { .searchable }

        /// The attribute's stored value is kept in the tombstone of a
        /// deletion in the store's history (``HistoryChange/tombstone``), as
        /// Core Data's `preserveValueOnDeletion`: what a sync engine needs to
        /// name a deleted record to a server. Not part of the schema.
        ///
        /// ```swift
        /// @Attribute(.preserveValueOnDeletion) var serverID = ""
        /// ```
        public static let preserveValueOnDeletion = Options(rawValue: 1 << 3)
    }

    /// The property name, which is also the column name.
    public let name: String
    /// How the value is stored.
    public let type: AttributeType
    /// Whether the column accepts `NULL` (the property is an optional).
    public let isOptional: Bool
    /// Whether the column has a unique index or an index.
    public let options: Options
    /// The attribute's name in the previous model version, for a rename.
    public let originalName: String?
    /// Produces the stored form of the property's default value; used when a
    /// migration adds the column to existing rows.
    public let defaultValue: (@Sendable () throws -> SQLValue)?
    /// Where an import finds the value: a key, or a dotted key path into
    /// nested objects (`"address.city"`); `nil` means the attribute's
    /// ``name``. Not part of the schema: changing it never needs a migration.
    public let importKey: String?
    /// How an import reads a date from JSON; `nil` means
    /// ``ImportDateFormat/automatic``. Not part of the schema.
    public let dateFormat: ImportDateFormat?
    /// The ranking weight of a ``Options-swift.struct/searchable`` attribute
    /// (see ``Options-swift.struct/searchable(weight:)``); `nil` means 1. Not
    /// part of the schema: it only orders search results.
    public let searchWeight: Double?

    /// Describes the attribute `name`; the parameters set the properties of
    /// the same names.
    public init(
        _ name: String,
        type: AttributeType,
        isOptional: Bool = false,
        options: Options = [],
        originalName: String? = nil,
        defaultValue: (@Sendable () throws -> SQLValue)? = nil,
        importKey: String? = nil,
        dateFormat: ImportDateFormat? = nil,
        searchWeight: Double? = nil
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.options = options
        self.originalName = originalName
        self.defaultValue = defaultValue
        self.importKey = importKey
        self.dateFormat = dateFormat
        self.searchWeight = searchWeight
    }

    /// Whether ``Options-swift.struct/unique`` is set.
    public var isUnique: Bool { options.contains(.unique) }
    /// Whether ``Options-swift.struct/indexed`` is set.
    public var isIndexed: Bool { options.contains(.indexed) }
    /// Whether ``Options-swift.struct/searchable`` is set.
    public var isSearchable: Bool { options.contains(.searchable) }

    public var description: String {
        var text = "\(name): \(type)\(isOptional ? "?" : "")"
        if isUnique { text += " unique" }
        if isIndexed { text += " indexed" }
        if isSearchable { text += " searchable" }
        return text
    }

    /// The part of the description that is stored with the model and compared
    /// (import settings are not: they describe JSON, not the store).
    var schema: AttributeSchema {
        AttributeSchema(
            name: name, type: type, isOptional: isOptional, isUnique: isUnique, isIndexed: isIndexed,
            originalName: originalName, isSearchable: isSearchable ? true : nil)
    }
}
