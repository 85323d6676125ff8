import Foundation
import Logging
import Testing
@testable import LiteRecord

@Suite(.serialized) struct LoggingTests {
    @Test func logLevelDefaultsToWarningAndIsSettable() {
        #expect(RecordStack.logger.label == "LiteRecord")
        let previous = RecordStack.logLevel
        defer { RecordStack.logLevel = previous }
        RecordStack.logLevel = .trace
        #expect(RecordStack.logLevel == .trace)
        #expect(RecordStack.logger.logLevel == .trace)
    }

    @Test func errorsDoNotShowValuesUnlessEnabled() {
        let error = LiteRecordError(.constraintViolation, "saving failed", sqlite: nil, arguments: [.text("secret")])
        #expect(!error.description.contains("secret"))
    }
}
