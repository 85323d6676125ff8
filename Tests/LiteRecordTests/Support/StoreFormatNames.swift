/// Names the store file keeps whatever the model, which tests spell through
/// the public API only.
enum StoreFormatNames {
    /// The table in which the store keeps each entity table's highest
    /// record id (part of the file format): tests that count the statements
    /// a save runs leave its bookkeeping out by this name.
    static let recordIDTable = "literecord_record_ids"
    /// The table that holds a store's persistent history.
    static let historyTable = "literecord_history"
}
