extension Equatable where Self: Entity {
    /// Whether two objects are the same object. A context holds one object per
    /// record, so for objects of one context this is "the same record".
    ///
    /// `@Entity` classes are `Equatable` through this (a class that declares
    /// its own `Equatable` keeps it); a hand-written entity adopts it by
    /// declaring the conformance:
    ///
    /// ```swift
    /// extension Tag: Equatable {}
    /// let untagged = try Book.findAll(matching: #Predicate { $0.author == nil })
    /// ```
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs === rhs
    }
}
