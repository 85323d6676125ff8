import Foundation
import LiteRecord
import Testing

@Entity(name: "RCAlbum")
final class RCAlbum {
    var title = ""
    @Relationship(deleteRule: .cascade, inverse: \RCTrack.album, minimumCount: 1) var tracks: [RCTrack] = []
    init() {}
    init(_ title: String) { self.title = title }
}

@Entity(name: "RCTrack")
final class RCTrack {
    var name = ""
    @Relationship var album: RCAlbum?
    init() {}
    init(_ name: String, on album: RCAlbum) {
        self.name = name
        self.album = album
    }
}

/// Docs/Relationships.md: a counted list's bounds hold however it changed,
/// and a merge policy's resolution is a change too. Under `.storeTrumps` a
/// deletion of an album another writer changed is dropped, the album kept;
/// its cascade had taken its tracks, which nobody changed, so the album
/// would be left with none against its minimum of one. The save refuses
/// that with `.validationFailed` and writes nothing; before, it committed
/// the album without a track, and the next save touching it was refused for
/// a count it did not change (model seed 42264).
@Suite struct ResolvedCountTests {
    let stack: RecordStack

    init() throws {
        stack = try RecordStack(inMemoryWith: [RCAlbum.self, RCTrack.self])
        let context = stack.newContext()
        let album = RCAlbum("blue")
        context.insert(album)
        context.insert(RCTrack("one", on: album))
        try context.save()
    }

    private func counts() throws -> (albums: Int, tracks: Int) {
        let context = stack.newContext()
        return (try RCAlbum.count(in: context), try RCTrack.count(in: context))
    }

    @Test func aKeptOwnerWhoseCascadeTookItsMembersRefusesTheSave() throws {
        let context = stack.newContext()
        context.mergePolicy = .storeTrumps
        let album = try #require(try RCAlbum.findAll(in: context).first)
        context.delete(album)
        #expect(context.deletedObjects.count == 2, "the cascade takes the track")
        let other = stack.newContext()
        try #require(try RCAlbum.findAll(in: other).first).title = "renamed elsewhere"
        try other.save()
        #expect {
            try context.save()
        } throws: { error in
            guard let error = error as? LiteRecordError else { return false }
            return error.kind == .validationFailed && error.message.contains("RCAlbum.tracks")
        }
        #expect(try counts() == (1, 1), "nothing was written")
        #expect(context.hasChanges, "the context keeps its deletion")
    }

    @Test func aKeptOwnerWithMembersLeftSaves() throws {
        let context = stack.newContext()
        context.mergePolicy = .storeTrumps
        let album = try #require(try RCAlbum.findAll(in: context).first)
        context.delete(album)
        let other = stack.newContext()
        let stored = try #require(try RCAlbum.findAll(in: other).first)
        stored.title = "renamed elsewhere"
        other.insert(RCTrack("two", on: stored))
        try other.save()
        try context.save()
        #expect(try counts() == (1, 1), "the album is kept with the track added elsewhere; its own track went with the cascade")
    }

    /// `.objectTrumps` deletes a track another writer had moved to another
    /// album meanwhile: the album the store names loses it, which this
    /// context never saw. Counted there, in the store, the save is refused
    /// when that album would be left below its minimum; before, only the
    /// album named here was counted, and the save committed an empty album
    /// (the outside review's first two gaps: a deletion `.objectTrumps`
    /// carries out over a conflict, and the owner the store named then).
    @Test func anObjectTrumpsDeletionCountsTheOwnerTheStoreNamed() throws {
        let setup = stack.newContext()
        let blue = try #require(try RCAlbum.findAll(in: setup).first)
        setup.insert(RCTrack("spare", on: blue))
        let red = RCAlbum("red")
        setup.insert(red)
        setup.insert(RCTrack("two", on: red))
        try setup.save()

        let context = stack.newContext()
        context.mergePolicy = .objectTrumps
        let one = try #require(try RCTrack.findFirst(byAttribute: "name", withValue: "one", in: context))
        let other = stack.newContext()
        let theirs = try #require(try RCTrack.findFirst(byAttribute: "name", withValue: "one", in: other))
        theirs.album = try RCAlbum.findFirst(byAttribute: "title", withValue: "red", in: other)
        other.delete(try #require(try RCTrack.findFirst(byAttribute: "name", withValue: "two", in: other)))
        try other.save()

        context.delete(one)
        let error = try #require(throws: LiteRecordError.self) { try context.save() }
        #expect(error.kind == .validationFailed && error.message.contains("at least 1"), "\(error)")
        let check = stack.newContext()
        #expect(try RCTrack.findAll(in: check).map(\.name).sorted() == ["one", "spare"], "nothing was written")
    }
}
