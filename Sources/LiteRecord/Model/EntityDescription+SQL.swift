extension EntityDescription {
    /// The entity's table as an identifier.
    var table: SQLIdentifier { SQLIdentifier(tableName) }
}
