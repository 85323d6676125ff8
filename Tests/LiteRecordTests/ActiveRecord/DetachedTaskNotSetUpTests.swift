import Foundation
import LiteRecordTesting
import Testing
import LiteRecord

/// A `Task.detached` in a trait-scoped test is outside the test's default
/// stack (task-locals are not inherited); the facade's `.notSetUp` says so
///.
@Suite struct DetachedTaskNotSetUpTests {
    @Test(.inMemoryStack(entities: [HandWrittenPerson.self]))
    func aDetachedTaskIsToldWhyItHasNoStack() async throws {
        #expect(RecordStack.isSetUp)
        let message = await Task.detached { () -> String? in
            do {
                _ = try RecordStack.current()
                return nil  // another test set up the process-wide default meanwhile
            } catch let error as LiteRecordError {
                return error.message
            } catch {
                return "\(error)"
            }
        }.value
        guard let message else { return }
        #expect(message.contains("Task.detached"))
        #expect(message.contains(".inMemoryStack"))
    }

    @Test(.inMemoryStack(entities: [HandWrittenPerson.self]))
    func aChildTaskSeesTheStack() async throws {
        let seen = await Task { RecordStack.isSetUp }.value
        #expect(seen)
    }
}
