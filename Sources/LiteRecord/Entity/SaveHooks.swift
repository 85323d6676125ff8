/// The save hooks an entity implements: the Swift code its saves run on each
/// object, which the store cannot run in SQL.
///
/// A set-based write (`updateAll`) changes rows without loading their
/// objects, so it cannot run `willSave()` or `validateForSave()`; it refuses
/// an entity whose ``Entity/saveHooks`` lists one, rather than writing what a
/// save would have refused or changed. `@Entity` fills ``Entity/saveHooks``
/// from the class body; a hand-written entity that implements a hook says so
/// itself:
///
/// ```swift
/// final class Note: Entity {
///     static var saveHooks: SaveHooks { [.willSave] }
///     func willSave() { updatedAt = .now }
///     // …
/// }
/// ```
public struct SaveHooks: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The entity implements ``Entity/willSave()``.
    public static let willSave = SaveHooks(rawValue: 1 << 0)
    /// The entity implements ``Entity/validateForSave()``.
    public static let validateForSave = SaveHooks(rawValue: 1 << 1)

    /// The hooks' names, as declared: `"willSave(), validateForSave()"`.
    public var description: String {
        var names: [String] = []
        if contains(.willSave) { names.append("willSave()") }
        if contains(.validateForSave) { names.append("validateForSave()") }
        return names.joined(separator: ", ")
    }
}
