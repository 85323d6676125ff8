public import Observation

/// Which property of an object a read or a change concerns, as Observation
/// sees it: an attribute or a relationship, by its index in the entity.
///
/// The accessors `@Entity` generates pass it to
/// ``Entity/observationAccess(_:member:)`` and its siblings; an entity
/// written by hand uses the forms that take only a key path.
///
/// ```swift
/// observationAccess(\.name, member: .attribute(0))
/// ```
public struct ObservationMember: Hashable, Sendable {
    @usableFromInline let rawValue: Int

    @usableFromInline init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// The attribute at `index` of the entity's ``Entity/attributes``.
    ///
    /// ```swift
    /// observationAccess(\.title, member: .attribute(0))   // the first attribute
    /// ```
    @inlinable
    public static func attribute(_ index: Int) -> ObservationMember {
        ObservationMember(rawValue: index &* 2)
    }

    /// The relationship at `index` of the entity's ``Entity/relationships``.
    ///
    /// ```swift
    /// observationAccess(\.author, member: .relationship(0))   // the first relationship
    /// ```
    @inlinable
    public static func relationship(_ index: Int) -> ObservationMember {
        ObservationMember(rawValue: index &* 2 &+ 1)
    }
}

/// One Observation registrar for up to ``capacity`` objects.
///
/// Each object joins a group on its first read that may be tracked and keeps
/// its place (its *slot*) for life. A property of an object is the group's
/// member `[slot, member]`, a key path of its own, so a change notifies
/// exactly the observers of that property of that object — as a registrar
/// per object would, without each object carrying one (a registrar is a box,
/// a lock and two tables: some 200 bytes an object paid from its first read,
/// observed or not).
///
/// Slots are never reused: what a `withObservationTracking` scope left in a
/// group's registrar for an object that went away can never fire for
/// another object, and goes away with the group, when its last object does.
/// The objects hold their group; the group holds none of them.
@usableFromInline
final class ObservationGroup: Observation.Observable, Sendable {
    /// Objects per group.
    static let capacity = 32
    /// Members with a key path made in advance (``keys``): attributes and
    /// relationships below index 32 each. Others are made on first use.
    static let membersInTable = 64

    @usableFromInline let registrar = ObservationRegistrar()

    init() {}

    /// The member for slot and member number `index` (see ``key(slot:member:)``);
    /// its value is never read.
    subscript(index: Int) -> Bool { false }

    /// Registers a read of `member` of the object at `slot`.
    @usableFromInline
    func access(slot: UInt8, member: ObservationMember) {
        registrar.access(self, keyPath: Self.key(slot: slot, member: member))
    }

    /// Runs `mutation`, a change of `member` of the object at `slot`,
    /// telling its observers.
    @usableFromInline
    func withMutation(slot: UInt8, member: ObservationMember, _ mutation: () -> Void) {
        registrar.withMutation(of: self, keyPath: Self.key(slot: slot, member: member), mutation)
    }

    // MARK: Key paths

    /// The key path naming `member` of the object at `slot`. Making a key path
    /// with a subscript argument costs microseconds, so the common ones are
    /// made once, together, and the rest once each.
    static func key(slot: UInt8, member: ObservationMember) -> KeyPath<ObservationGroup, Bool> {
        let index = member.rawValue &* capacity &+ Int(slot)
        if member.rawValue < membersInTable { return keys[index] }
        return rareKeys.withLock { keys in
            if let key = keys[index] { return key }
            let key = \ObservationGroup.[index]
            keys[index] = key
            return key
        }
    }

    // unsafe(never-mutated): made once and never changed; key paths are
    // immutable values, which this compiler does not mark `Sendable`.
    nonisolated(unsafe) private static let keys: [KeyPath<ObservationGroup, Bool>] = (0..<membersInTable * capacity).map {
        \ObservationGroup.[$0]
    }

    private static let rareKeys = Locked<[Int: KeyPath<ObservationGroup, Bool>]>([:])

    // MARK: Joining

    /// A place for one more object: the group being filled and the next free
    /// slot in it, a new group once it is full.
    static func join() -> (group: ObservationGroup, slot: UInt8) {
        vacancy.withLock { vacancy in
            if let group = vacancy.group, vacancy.next < capacity {
                defer { vacancy.next += 1 }
                return (group, UInt8(vacancy.next))
            }
            let group = ObservationGroup()
            vacancy = (group, 1)
            return (group, 0)
        }
    }

    private static let vacancy = Locked<(group: ObservationGroup?, next: Int)>((nil, 0))

    // MARK: Entities written by hand

    /// The member number of a property known only by its key path (an entity
    /// written by hand), given on first use; numbers start above any index an
    /// entity's attributes or relationships can have.
    @usableFromInline
    static func member(named keyPath: AnyKeyPath) -> ObservationMember {
        let name = MemberName(keyPath: keyPath)
        return namedMembers.withLock { members in
            if let member = members[name] { return member }
            let member = ObservationMember(rawValue: (1 << 40) &+ members.count)
            members[name] = member
            return member
        }
    }

    /// A key path as a dictionary key shared across threads: key paths are
    /// immutable values, which this compiler does not mark `Sendable`.
    private struct MemberName: Hashable, @unchecked Sendable {
        let keyPath: AnyKeyPath
    }

    private static let namedMembers = Locked<[MemberName: ObservationMember]>([:])
}
