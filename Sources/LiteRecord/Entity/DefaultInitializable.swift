/// An entity whose every stored property has a default value, so that
/// `create(in:)` can make one. The `@Entity` macro adds the conformance when
/// it applies.
public protocol DefaultInitializable {
    /// Creates an object with every stored property at its default value.
    init()
}
