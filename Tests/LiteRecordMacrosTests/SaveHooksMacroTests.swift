import Testing

/// `@Entity` lists the save hooks the class body declares in `saveHooks`,
/// which set-based updates read to refuse an entity whose saves run Swift
/// code on each object.
@Suite struct SaveHooksMacroTests {
    /// The members every expansion of `Stamp` has, after `saveHooks`.
    private static let stampMembers = #"""

            static let attributes: [LiteRecord.AttributeDescription] = []

            init(row: LiteRecord.Row) throws {
            }

            init() {
            }

            func encodeAttribute(at index: Int) throws -> LiteRecord.SQLValue {
                switch index {
                default:
                    .null
                }
            }

            func decodeAttribute(at index: Int, from row: LiteRecord.Row) throws {
                switch index {
                default:
                    break
                }
            }

            static func attributeIndex(for keyPath: PartialKeyPath<Stamp>) -> Int? {
                switch keyPath {
                default:
                    nil
                }
            }

            static func memberKeyPath(named name: String, throughOptional: Bool) -> AnyKeyPath? {
                switch (name, throughOptional) {
                default:
                    nil
                }
            }
        }

        nonisolated extension Stamp: LiteRecord.Entity, LiteRecord.DefaultInitializable, Swift.Equatable, LiteRecord.ObservableRecord {
        }
        """#

    private static let stampHeader = """

            @exclusivity(unchecked) var recordState = LiteRecord.RecordState()

            static let entityName = "Stamp"

            static let tracksChanges = true
        """

    @Test func bothHooksAreListedInTheProtocolsOrder() {
        assertExpansion(
            """
            @Entity
            final class Stamp {
                func validateForSave() throws {}
                func willSave() {}
            }
            """,
            expandedSource: """
                final class Stamp {
                    func validateForSave() throws {}
                    func willSave() {}
                \(Self.stampHeader)

                    static let saveHooks: LiteRecord.SaveHooks = [.willSave, .validateForSave]
                \(Self.stampMembers)
                """)
    }

    @Test func aHookInAConditionalBlockCounts() {
        assertExpansion(
            """
            @Entity
            final class Stamp {
                #if DEBUG
                func willSave() {}
                #endif
            }
            """,
            expandedSource: """
                final class Stamp {
                    #if DEBUG
                    func willSave() {}
                    #endif
                \(Self.stampHeader)

                    static let saveHooks: LiteRecord.SaveHooks = [.willSave]
                \(Self.stampMembers)
                """)
    }

    /// Functions that do not witness a hook (another signature, a static
    /// function) add nothing, and a class that states `saveHooks` itself
    /// keeps its own.
    @Test func otherFunctionsAndAnOwnDeclarationAddNothing() {
        assertExpansion(
            """
            @Entity
            final class Stamp {
                static var saveHooks: SaveHooks { [] }
                func willSave(_ reason: String) {}
                static func validateForSave() {}
                func willSave() {}
            }
            """,
            expandedSource: """
                final class Stamp {
                    static var saveHooks: SaveHooks { [] }
                    func willSave(_ reason: String) {}
                    static func validateForSave() {}
                    func willSave() {}
                \(Self.stampHeader)
                \(Self.stampMembers)
                """)
    }
}
