/// An entity of the model: its name (also its table's name) and its attributes.
public struct EntityDescription: Sendable, CustomStringConvertible {
    public let name: String
    /// The entity's name in the previous model version, for a rename.
    public let originalName: String?
    public let attributes: [AttributeDescription]
    /// The Swift type that declares the entity.
    public let type: any Entity.Type

    /// `SELECT "Z_PK", <attributes> FROM <table>`, built once.
    let selectSQL: String
    /// `INSERT INTO <table> (<attributes>) VALUES (?, …)`, built once.
    let insertSQL: String
    /// `DELETE FROM <table> WHERE "Z_PK" = ?`, built once.
    let deleteSQL: String
    let tracksChanges: Bool

    init(type: any Entity.Type) {
        self.type = type
        self.name = type.entityName
        self.originalName = type.entityOriginalName
        self.attributes = type.attributes
        self.tracksChanges = type.tracksChanges
        let table = Connection.quote(type.entityName)
        let key = Connection.quote(Model.primaryKeyColumn)
        let columns = attributes.map { Connection.quote($0.name) }
        selectSQL = "SELECT \(([key] + columns).joined(separator: ", ")) FROM \(table)"
        if columns.isEmpty {
            insertSQL = "INSERT INTO \(table) DEFAULT VALUES"
        } else {
            let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
            insertSQL = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))"
        }
        deleteSQL = "DELETE FROM \(table) WHERE \(key) = ?"
    }

    /// `UPDATE <table> SET <changed columns> WHERE "Z_PK" = ?`.
    func updateSQL(_ indexes: [Int]) -> String {
        let assignments = indexes.map { "\(Connection.quote(attributes[$0].name)) = ?" }.joined(separator: ", ")
        return "UPDATE \(Connection.quote(name)) SET \(assignments) WHERE \(Connection.quote(Model.primaryKeyColumn)) = ?"
    }

    public var tableName: String { name }

    public var description: String {
        "\(name)(\(attributes.map(\.description).joined(separator: ", ")))"
    }

    /// The index of the attribute called `name`, if there is one.
    func attributeIndex(named name: String) -> Int? {
        attributes.firstIndex { $0.name == name }
    }

    var schema: EntitySchema {
        EntitySchema(name: name, originalName: originalName, attributes: attributes.map(\.schema))
    }
}
