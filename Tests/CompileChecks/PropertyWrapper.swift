// expect-error: stored property 'level' cannot use the property wrapper or macro '@Clamped', because '@Entity' generates its accessors; mark it '@Transient' or store the wrapped value
// A property wrapper on a stored property is one error at
// the wrapper, saying what to do, instead of a dozen about the accessors and
// storage the macro and the wrapper both generate.
import Foundation
import LiteRecord

@propertyWrapper struct Clamped {
    private var value = 0
    var wrappedValue: Int {
        get { value }
        set { value = min(max(newValue, 0), 10) }
    }
    init(wrappedValue: Int) { value = min(max(wrappedValue, 0), 10) }
}

@Entity final class Setting {
    var name = ""
    @Clamped var level = 0
    init() {}
}
