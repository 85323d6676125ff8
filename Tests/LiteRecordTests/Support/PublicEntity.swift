public import Foundation
public import LiteRecord

/// A `public` entity: every generated member must be `public` to witness the
/// protocol, exactly as in a separate model module.
@Entity(name: "Note", originalName: "Memo")
public final class PublicNote {
    @Attribute(.unique, .indexed) public var title: String = ""
    public var body: String?
    @Attribute(originalName: "created") public var createdAt: Date = Date()
    public private(set) var revision = 0

    public init() {}

    public func revise(_ text: String) {
        body = text
        revision += 1
    }
}
