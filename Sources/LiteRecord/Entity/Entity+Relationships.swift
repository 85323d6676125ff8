extension Entity {
    /// The object a to-one relationship points at, loaded from the store on
    /// first access (one statement; none when the object is already in the
    /// context). The `@Entity` macro's accessors call this; a hand-written
    /// entity calls it from its property's getter.
    ///
    /// ```swift
    /// var author: Author? {
    ///     get { relatedObject(at: 0) }
    ///     set { setRelatedObject(newValue, at: 0) }
    /// }
    /// ```
    ///
    /// Accessing a relationship never traps. When the related object cannot be
    /// loaded (the object's context is gone, the store cannot be read) it
    /// returns `nil`, logs the error, and the context's next `save()` throws it.
    public func relatedObject<D: Entity>(at index: Int, as type: D.Type = D.self) -> D? {
        guard let object = RelationGraph.toOne(self, index) else { return nil }
        return object as? D
    }

    /// Points a to-one relationship at `value` (or clears it), updating the
    /// inverse of both the old and the new related object in memory.
    ///
    /// ```swift
    /// book.setRelatedObject(ann, at: 0)     // what `book.author = ann` does
    /// ```
    ///
    /// An object not yet in a context joins the context of the object it is
    /// related to. Relating objects of two different contexts, or a deleted
    /// object, changes nothing; the context's next `save()` throws
    /// `.invalidObject` naming the relationship.
    public func setRelatedObject<D: Entity>(_ value: D?, at index: Int) {
        RelationGraph.setToOne(self, index, value)
    }

    /// The objects of a to-many relationship, loaded from the store on first
    /// access with one statement (never one per object).
    ///
    /// ```swift
    /// var books: [Book] {
    ///     get { relatedObjects(at: 1) }
    ///     set { setRelatedObjects(newValue, at: 1) }
    /// }
    /// ```
    ///
    /// When the objects cannot be loaded (the context is gone, the store cannot
    /// be read) it returns the objects known in memory, logs the error, and the
    /// context's next `save()` throws it.
    /// Inlinable, so that the accessor `@Entity` generates builds its `[D]`
    /// specialized for `D` (unspecialized, each append went through `D`'s
    /// metadata).
    @inlinable
    public func relatedObjects<D: Entity>(at index: Int, as type: D.Type = D.self) -> [D] {
        let objects = RelationGraph.toMany(self, index)
        var result: [D] = []
        result.reserveCapacity(objects.count)
        for object in objects {
            // unsafe(type-checked-first): relationship slots hold objects of
            // the destination's class; the exact type check just above the
            // cast and a reinterpreting cast cost a fraction of the general
            // dynamic cast `as? D`.
            if ObjectIdentifier(Swift.type(of: object)) == ObjectIdentifier(D.self) {
                result.append(unsafeDowncast(object as AnyObject, to: D.self))  // unsafe(type-checked-first)
            } else if let cast = object as? D {
                result.append(cast)
            }
        }
        return result
    }

    /// Replaces the objects of a to-many relationship, updating the inverses
    /// of the objects added and removed in memory.
    ///
    /// ```swift
    /// ann.setRelatedObjects(ann.books + [dune], at: 1)   // what `ann.books.append(dune)` does
    /// ```
    ///
    /// Objects of another context and deleted objects are left out; the
    /// context's next `save()` throws `.invalidObject` naming them.
    public func setRelatedObjects<D: Entity>(_ values: [D], at index: Int) {
        RelationGraph.setToMany(self, index, values.map { $0 as any Entity })
    }
}

extension Entity {
    /// ``relatedObject(at:as:)`` after applying the value an initializer
    /// assigned before the object was fully initialized, kept in `seed`.
    /// Called by the accessors `@Entity` generates.
    ///
    /// ```swift
    /// get { relatedObject(at: 0, seed: &_author) }
    /// ```
    public func relatedObject<D: Entity>(at index: Int, seed: inout D??) -> D? {
        if case .some(let pending) = seed {
            seed = nil
            if let pending { setRelatedObject(pending, at: index) }
        }
        return relatedObject(at: index)
    }

    /// ``relatedObjects(at:as:)`` after applying the value an initializer
    /// assigned before the object was fully initialized, kept in `seed`.
    /// Called by the accessors `@Entity` generates.
    ///
    /// ```swift
    /// get { relatedObjects(at: 1, seed: &_books) }
    /// ```
    public func relatedObjects<D: Entity>(at index: Int, seed: inout [D]?) -> [D] {
        if let pending = seed {
            seed = nil
            if !pending.isEmpty { setRelatedObjects(pending, at: index) }
        }
        return relatedObjects(at: index)
    }
}
