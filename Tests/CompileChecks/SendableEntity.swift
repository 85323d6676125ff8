// expect-error: '@Entity' class 'Note' cannot be 'Sendable': its objects belong to the context that fetched them; pass 'RecordID's or values between tasks
// expect-error: stored property 'title' of 'Sendable'-conforming class 'Note' is mutable
// A `Sendable` entity is refused at its conformance with
// what to do (entities are not Sendable: Docs/Internals/Invariants.md,
// "Contexts stay in their closures"). Swift still reports the
// class's own mutable property beside it (the check counts errors: these
// two), but no longer errors naming storage the macro generates.
import Foundation
import LiteRecord

@Entity final class Note: Sendable {
    var title = ""
    init() {}
}
