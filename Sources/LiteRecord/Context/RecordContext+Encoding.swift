extension RecordContext {
    /// Every attribute's stored form, encoded as a root save encodes it
    /// (``encode(_:_:)``, one attribute at a time): a child's push takes its
    /// values from here, so that a value a root save refuses (NaN, -0.0, a
    /// value that fails to encode) is refused at the push too, with the same
    /// error, instead of reaching the parent as something else.
    ///
    /// - Throws: the attribute's encoding error, named `Entity.attribute`
    ///   (`.validationFailed` for a value SQLite cannot keep exactly).
    func storedValues(_ object: any Entity) throws(LiteRecordError) -> [SQLValue] {
        let count = type(of: object).attributes.count
        var values: [SQLValue] = []
        values.reserveCapacity(count)
        for index in 0..<count {
            do {
                values.append(try encode(object, index))
            } catch {
                throw LiteRecordError.wrap(error, "encoding \(type(of: object).entityName).\(type(of: object).attributes[index].name)")
            }
        }
        return values
    }

    /// Every attribute's stored form, for a snapshot or a comparison: `NULL`
    /// where encoding fails. Only for objects whose values a save or a push
    /// has already encoded (``storedValues(_:)``) or that nothing writes.
    func encodedValues(_ object: any Entity) -> [SQLValue] {
        type(of: object).attributes.indices.map { (try? object.encodeAttribute(at: $0)) ?? .null }
    }

    /// Every attribute of an ancestor's object as it holds it, for a child's
    /// copy of that record: ``storedValues(_:)``, except that a value a save
    /// refuses (NaN, `-0.0`) is copied exactly, since the copy stores
    /// nothing — the child's push refuses it as the root's save would.
    ///
    /// - Throws: `.validationFailed` naming `Entity.attribute` for a value
    ///   that has no stored form at all (an unsigned integer above
    ///   `Int64.max`, a value whose own encoding fails).
    func copiedValues(_ object: any Entity) throws -> [SQLValue] {
        try ExactCopy.$isActive.withValue(true) { try storedValues(object) }
    }
}
