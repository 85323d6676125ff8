import Foundation

/// A sort descriptor that orders by the value's own `<` on every platform.
///
/// `SortDescriptor(\.name)` on a `String` key path carries a
/// `.localizedStandard` comparator in Apple's Foundation and none on Linux,
/// so a test that expects Swift's (byte-like) order spells it with this: in a
/// generic context only the `Comparable` initializer applies.
func comparableOrder<Root, Value: Comparable>(_ keyPath: any KeyPath<Root, Value> & Sendable, order: SortOrder = .forward) -> SortDescriptor<Root> {
    SortDescriptor(keyPath, order: order)
}
