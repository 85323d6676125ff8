@testable import LiteRecord

// de1b07a has no "forgotten" mark: the merge and `reset()` detached an
// object (phase `.unmanaged`, no context), which is what the model's merge
// check asks. Whether such an object can then be saved as a new record —
// is what the model's `saveForgotten` step tests, against
// de1b07a's own behaviour.
extension RecordState {
    var isForgotten: Bool { phase == .unmanaged }
}
