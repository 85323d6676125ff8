import Foundation
import LiteRecord
import Testing

/// Under faults, the one-to-one agreement a `.storeTrumps` resolution makes
/// inside the save's transaction: another stack puts lamp "three" on desk
/// "d" after this context read them; this context puts lamp "two" there.
/// The store's pairing stands and lamp "two" loses the desk, in the
/// transaction that commits — or nothing is written at all.
extension FaultInjectionTests {
    @Test func aSaveWhoseResolutionMakesAOneToOneAgree() async throws { try await exercise(Self.oneToOneResolvingSave) }

    static var oneToOneResolvingSave: Workload {
        let entities: [any Entity.Type] = [OODesk.self, OOLamp.self]
        func meanwhile(_ url: URL) throws {
            let stack = try RecordStack(storeAt: url, entities: entities)
            defer { try? stack.close() }
            let other = stack.newContext()
            let three = try #require(try OOLamp.findFirst(byAttribute: "label", withValue: "three", in: other))
            three.desk = try OODesk.findFirst(byAttribute: "name", withValue: "d", in: other)
            try other.save()
        }
        return Workload(
            name: "one-to-one resolving save", operationWord: "sav", entities: entities, laterEntities: entities,
            seed: { url in
                let stack = try RecordStack(storeAt: url, entities: entities)
                try OODesk.insertWithThreeLamps(in: stack.newContext())
                try stack.close()
            },
            run: { url in
                do {
                    let stack = try RecordStack(storeAt: url, entities: entities)
                    defer { try? stack.close() }
                    let context = stack.newContext()
                    context.mergePolicy = .storeTrumps
                    let desk = try #require(try OODesk.findFirst(byAttribute: "name", withValue: "d", in: context))
                    let two = try #require(try OOLamp.findFirst(byAttribute: "label", withValue: "two", in: context))
                    try meanwhile(url)
                    desk.lamp = two
                    try FaultVFS.countedSave(context, acknowledging: url)
                    return nil
                } catch {
                    return error
                }
            },
            verify: { url, returned in
                // Committed or not, both sides agree; committed, the
                // store's pairing ("three") stands.
                do {
                    let stack = try RecordStack(storeAt: url, entities: entities)
                    defer { try? stack.close() }
                    let context = stack.newContext()
                    let desk = try #require(try OODesk.findFirst(byAttribute: "name", withValue: "d", in: context))
                    let lamp = desk.lamp?.label
                    for stored in try OOLamp.findAll(in: context) where (stored.desk === desk) != (lamp == stored.label) {
                        return "the desk names \(lamp ?? "no lamp") but lamp \(stored.label) names \(stored.desk?.name ?? "no desk")"
                    }
                    if returned, lamp != "three" { return "the resolved save left the desk with \(lamp ?? "no lamp"), not three" }
                    return nil
                } catch {
                    return "reading the store after the save: \(error)"
                }
            },
            writtenMeanwhile: meanwhile)
    }
}
