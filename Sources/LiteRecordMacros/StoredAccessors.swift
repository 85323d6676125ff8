import SwiftSyntax

/// The accessor text that `@_PersistedProperty`, `@_InferredProperty` and
/// `@_RelationshipProperty` share, written once.
enum StoredAccessors {
    /// The `init` accessor: lets the class's own initializers assign the
    /// property before everything is initialized, straight into `storage`.
    static func initializer(_ storage: String) -> AccessorDeclSyntax {
        """
        @storageRestrictions(initializes: \(raw: storage))
        init(initialValue) {
            \(raw: storage) = initialValue
        }
        """
    }

    /// A column's setter: an equal value is ignored; a different one is
    /// stored under Observation and reported to the context as a change of
    /// attribute `index`. `preamble` (whole lines, indented one level) runs
    /// first and may return.
    static func columnSetter(storage: String, property: String, index: String, preamble: String = "") -> AccessorDeclSyntax {
        """
        set {
        \(raw: preamble)    guard LiteRecord.AttributeCoding.isChange(\(raw: storage), newValue) else {
                return
            }
            withObservedMutation(of: \\.\(raw: property), member: .attribute(\(raw: index))) {
                \(raw: storage) = newValue
            }
            didChangeAttribute(at: \(raw: index))
        }
        """
    }
}
