import Foundation
import Testing
@testable import LiteRecord

/// An enum whose Codable conformance is its own, not its raw value's.
enum Spelled: String, Codable, CaseIterable {
    case one, two
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue.uppercased())
    }
}

/// A RawRepresentable struct with the synthesized (raw value) encoding.
struct Label: RawRepresentable, Codable, Hashable {
    var rawValue: String
}

/// What stays untranslatable over stored collections is refused with
/// `.unsupportedPredicate` naming the construct — never a wrong result.
@Suite struct StoredCollectionRefusalTests {
    let context: RecordContext

    init() throws {
        context = try CollectionSeed.stack(count: 20).newContext()
    }

    private func expectUnsupported(
        _ predicate: Predicate<CollectionHolder>, naming expected: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            _ = try CollectionHolder.findAll(matching: predicate, in: context)
            Issue.record("accepted a predicate naming \(expected)", sourceLocation: sourceLocation)
        } catch let error as LiteRecordError {
            #expect(error.kind == .unsupportedPredicate, "\(error)", sourceLocation: sourceLocation)
            #expect(error.message.contains(expected), "\(error.message)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("not a LiteRecordError: \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func floatElements() {
        expectUnsupported(#Predicate { $0.weights.contains(1) }, naming: "\\CollectionHolder.weights")
        expectUnsupported(#Predicate { $0.weights.isEmpty }, naming: "single precision")
    }

    @Test func optionalElements() {
        expectUnsupported(#Predicate { $0.optionals.isEmpty }, naming: "optional elements")
    }

    @Test func comparingWholeCollections() {
        let some = ["a"]
        expectUnsupported(#Predicate { $0.tags == some }, naming: "Equal")
        expectUnsupported(#Predicate { $0.tags != $0.tags }, naming: "NotEqual")
    }

    @Test func otherSequenceOperations() {
        expectUnsupported(#Predicate { $0.tags.max() == "a" }, naming: "SequenceMaximum")
        expectUnsupported(#Predicate { $0.numbers.min() == 1 }, naming: "SequenceMinimum")
        expectUnsupported(#Predicate { $0.tags.first == "a" }, naming: "Array<String> to Optional<String>")
        expectUnsupported(#Predicate { $0.tags[0] == "a" }, naming: "CollectionIndexSubscript")
    }

    @Test func closuresOverCapturedRanges() {
        let values = 1...5
        expectUnsupported(#Predicate { holder in values.contains { $0 == holder.value } }, naming: "ClosedRange")
        expectUnsupported(#Predicate { holder in values.allSatisfy { $0 != holder.value } }, naming: "ClosedRange")
    }

    /// A RawRepresentable element is compared by raw value only when its
    /// JSON encoding is verifiably the raw value.
    @Test func rawRepresentableEncodingIsChecked() {
        #expect(PredicateTranslator.encodesAsRawValue(Status.self))
        #expect(PredicateTranslator.encodesAsRawValue(Level.self))
        #expect(PredicateTranslator.encodesAsRawValue(Label.self))
        #expect(!PredicateTranslator.encodesAsRawValue(Spelled.self))
        guard case .failure(.element(let reason)) = PredicateTranslator.collectionKind(of: [Spelled].self) else {
            Issue.record("[Spelled] accepted")
            return
        }
        #expect(reason.contains("raw value"))
        guard case .success(.jsonCollection(.rawRepresentable(.string, _), _)) = PredicateTranslator.collectionKind(of: Set<Label>.self)
        else {
            Issue.record("Set<Label> refused")
            return
        }
    }
}
