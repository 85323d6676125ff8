import Synchronization

/// Whether error messages may show values (bound values, the values of a
/// conflict, an imported value that does not fit), which are user data and
/// stay out of logs unless someone turns them on.
///
/// Two levels: the process-wide switch
/// (``LiteRecordError/includesValuesInDescriptions``) and a stack's own choice
/// (``RecordStack/includesValuesInDescriptions``), which wins while it is set.
/// Code that has its store at hand asks the store (`Store.showsValuesInErrors`);
/// code deep in a stack's operation that does not (the import's coercions)
/// reads ``showsValues``, which the operation's entry point scopes to its
/// stack with ``Store/scopingErrorValues(_:)``.
enum ErrorSettings {
    /// The process-wide switch.
    static let includesValues = Locked(false)

    /// The choice of the stack whose operation runs on this task or thread,
    /// `nil` outside one or when that stack follows the process-wide switch.
    @TaskLocal static var stackIncludesValues: Bool?

    /// Whether an error made here and now may show values.
    static var showsValues: Bool { stackIncludesValues ?? includesValues.withLock { $0 } }
}
