extension RecordContext {
    /// How many rounds of `willSave` one save runs at most (see
    /// ``runWillSave()``) before it gives up.
    static let willSaveRoundLimit = 100

    /// Runs `willSave` on every object the save (or the push of a child) will
    /// write, once each, and returns the saved objects with listed changes as
    /// they stand afterwards (``collectUpdated()``). Root saves and child
    /// pushes both collect here, so both call `willSave` on the same objects.
    ///
    /// The rule, Core Data's: the first round calls the inserted objects,
    /// the saved ones with tracked changes and the saved untracked ones whose
    /// values differ from their snapshot. An object that a round inserts or
    /// changes (and had no `willSave` yet) gets its own in the next round;
    /// rounds repeat until one touches nothing new. No object's `willSave`
    /// runs twice in one save, even when a later round changes it again.
    /// Deleted objects get none.
    ///
    /// A model of tracked entities only, whose `willSave`s touch nothing new,
    /// runs one round and builds no set: the context's ``changeTouches``
    /// counter tells. With untracked objects the context holds, the later
    /// rounds compare them against their snapshots again.
    ///
    /// - Throws: ``LiteRecordError`` of kind `.validationFailed` when
    ///   ``willSaveRoundLimit`` rounds each touched new objects (a `willSave`
    ///   that inserts an object whose `willSave` inserts another, and so on).
    func runWillSave() throws(LiteRecordError) -> [any Entity] {
        var changed = collectUpdated()
        var round = (inserted: inserted, changed: changed, untracked: changedUntracked(except: []))
        var called = Set<ObjectIdentifier>()
        for _ in 0..<Self.willSaveRoundLimit {
            let touches = changeTouches
            for object in round.inserted { object.willSave() }
            for object in round.changed { object.willSave() }
            for object in round.untracked { object.willSave() }
            let touched = touches != changeTouches
            // Nothing listed, inserted or deleted, and no untracked object
            // that a willSave could have changed unseen: done.
            guard touched || !untracked.isEmpty else { return changed }
            for object in round.untracked { called.insert(ObjectIdentifier(object)) }
            if touched {
                for object in round.inserted { called.insert(ObjectIdentifier(object)) }
                for object in round.changed { called.insert(ObjectIdentifier(object)) }
                changed = collectUpdated()
                round.inserted = inserted.filter { !called.contains(ObjectIdentifier($0)) }
                round.changed = changed.filter { !called.contains(ObjectIdentifier($0)) }
            } else {
                round.inserted = []
                round.changed = []
            }
            round.untracked = changedUntracked(except: called)
            if round.inserted.isEmpty, round.changed.isEmpty, round.untracked.isEmpty { return changed }
        }
        throw LiteRecordError(
            .validationFailed,
            "willSave kept inserting or changing new objects for \(Self.willSaveRoundLimit) rounds; "
                + "make willSave change only its own object, or objects it does not create each time")
    }

    /// The saved untracked objects whose values differ from their snapshot,
    /// leaving out those listed as updated (``runWillSave()`` calls them with
    /// the listed ones) and those in `called`.
    private func changedUntracked(except called: Set<ObjectIdentifier>) -> [any Entity] {
        guard !untracked.isEmpty else { return [] }
        return untracked.values.filter { object in
            !object.withState({ $0.listings.contains(.updated) }) && !called.contains(ObjectIdentifier(object))
                && isChangedUntracked(object)
        }
    }

    /// Runs `validateForSave()` on one object a save or push writes.
    ///
    /// - Throws: the object's ``LiteRecordError`` as it is; any other error
    ///   as `.validationFailed`, naming the entity.
    func validate(_ object: any Entity) throws(LiteRecordError) {
        do {
            try object.validateForSave()
        } catch let error as LiteRecordError {
            throw error
        } catch {
            throw LiteRecordError(
                .validationFailed, "\(type(of: object).entityName) failed validation: \(error)")
        }
    }
}
