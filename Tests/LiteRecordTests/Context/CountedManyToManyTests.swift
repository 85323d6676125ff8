import Foundation
import Testing
import LiteRecord

@Entity(name: "CPost")
final class CPost {
    var title = ""
    @Relationship(deleteRule: .nullify) var tags: [CTag] = []
    init() {}
    init(_ title: String) { self.title = title }
}

/// A tag is on one or two posts, never none and never three.
@Entity(name: "CTag")
final class CTag {
    var label = ""
    @Relationship(inverse: \CPost.tags, minimumCount: 1, maximumCount: 2) var posts: [CPost] = []
    init() {}
    init(_ label: String) { self.label = label }
}

/// A counted many-to-many holds its bounds however the other side changes
/// it — the post's list set or emptied, the post deleted, a new post linked
/// to a full tag — whether or not the tag's own list was read.
@Suite struct CountedManyToManyTests {
    let stack: RecordStack

    /// Post "one" tagged "lone" (its only post) and "full"; post "two"
    /// tagged "full" (two posts: its maximum).
    init() throws {
        stack = try RecordStack(inMemoryWith: [CPost.self, CTag.self])
        let context = stack.newContext()
        let (one, two) = (CPost("one"), CPost("two"))
        let (lone, full) = (CTag("lone"), CTag("full"))
        for object in [one, two] { context.insert(object) }
        for object in [lone, full] { context.insert(object) }
        one.tags = [lone, full]
        two.tags = [full]
        try context.save()
    }

    private func post(_ title: String, in context: RecordContext) throws -> CPost {
        try #require(try CPost.findFirst(byAttribute: "title", withValue: title, in: context))
    }

    private func tag(_ label: String, in context: RecordContext) throws -> CTag {
        try #require(try CTag.findFirst(byAttribute: "label", withValue: label, in: context))
    }

    @Test(arguments: [false, true])
    func emptyingThePostsListIsRefusedForTheLoneTag(tagsRead: Bool) throws {
        let context = stack.newContext()
        if tagsRead { _ = try tag("lone", in: context).posts }
        try post("one", in: context).tags = []
        let error = expectError(.validationFailed) { try context.save() }
        #expect(error?.message.contains("at least 1") == true, "\(String(describing: error))")
    }

    @Test(arguments: [false, true])
    func deletingThePostIsRefusedForTheLoneTag(tagsRead: Bool) throws {
        let context = stack.newContext()
        if tagsRead { _ = try tag("lone", in: context).posts }
        context.delete(try post("one", in: context))
        expectError(.validationFailed) { try context.save() }
        #expect(try CPost.count(in: stack.newContext()) == 2)
    }

    @Test(arguments: [false, true])
    func linkingAThirdPostToAFullTagIsRefused(tagsRead: Bool) throws {
        let context = stack.newContext()
        let full = try tag("full", in: context)
        if tagsRead { _ = full.posts }
        let three = CPost("three")
        context.insert(three)
        three.tags = [full]
        let error = expectError(.validationFailed) { try context.save() }
        #expect(error?.message.contains("at most 2") == true, "\(String(describing: error))")
    }

    @Test func changesWithinTheBoundsSave() throws {
        let context = stack.newContext()
        let two = try post("two", in: context)
        two.tags = [try tag("full", in: context), try tag("lone", in: context)]
        try context.save()
        let fresh = stack.newContext()
        #expect(try tag("lone", in: fresh).posts.map(\.title).sorted() == ["one", "two"])
        #expect(try post("two", in: fresh).tags.map(\.label).sorted() == ["full", "lone"])
    }

    /// Two contexts each link a new post to tag "lone" (one post, at most
    /// two), each seeing two; the second save would leave three links in
    /// the store and is refused, under every merge policy: a link is no
    /// column of either record, so no version meets it, and the count is
    /// taken in the store inside the save's transaction.
    @Test(arguments: [MergePolicy.error, .objectTrumps, .storeTrumps])
    func aTagTwoContextsLinkPastItsMaximumIsRefusedToTheSecond(policy: MergePolicy) throws {
        let first = stack.newContext()
        let second = stack.newContext()
        second.mergePolicy = policy
        for (context, title) in [(first, "x"), (second, "y")] {
            let lone = try tag("lone", in: context)
            #expect(lone.posts.count == 1)
            let post = CPost(title)
            context.insert(post)
            post.tags = [lone]
        }
        try first.save()
        let error = expectError(.validationFailed) { try second.save() }
        #expect(error?.message.contains("at most 2") == true, "\(String(describing: error))")
        let reader = stack.newContext()
        #expect(try tag("lone", in: reader).posts.map(\.title).sorted() == ["one", "x"])
    }
}
