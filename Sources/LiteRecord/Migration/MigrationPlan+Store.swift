import Foundation

extension MigrationPlan {
    /// Refuses plans whose steps cannot be told apart in the store's record of
    /// what ran.
    func validate() throws(LiteRecordError) {
        var seen = Set<String>()
        for step in steps {
            if step.name.isEmpty {
                throw LiteRecordError(.migrationFailed, "a MigrationPlan step has an empty name; every step needs a unique name, which the store records once it ran")
            }
            if !seen.insert(step.name).inserted {
                throw LiteRecordError(
                    .migrationFailed, "the MigrationPlan has two steps named '\(step.name)'; step names must be unique, because the store records each name once it ran")
            }
        }
        for removal in removals where removal.entity.isEmpty || removal.attribute?.isEmpty == true {
            let what = removal.attribute == nil ? "removeEntity" : "removeAttribute"
            throw LiteRecordError(.migrationFailed, "a MigrationPlan \(what) declaration has an empty name; name the stored entity (and attribute) whose data may be deleted")
        }
    }
}

extension Connection {
    /// The steps of `plan` that this store has not run yet, in plan order.
    func pendingSteps(of plan: MigrationPlan?) throws -> [MigrationPlan.Step] {
        guard let plan else { return [] }
        return try plan.steps.filter { try metadata(MetadataKey.migrationStepPrefix + $0.name) == nil }
    }

    /// Records that the step `name` ran, so that it never runs again.
    func recordStepRan(_ name: String) throws {
        try setMetadata(MetadataKey.migrationStepPrefix + name, ISO8601DateFormatter().string(from: Date()))
    }
}
