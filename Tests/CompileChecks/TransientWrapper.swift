// What the property-wrapper diagnostic's fix-it writes,
// '@Transient' in front of the wrapper, compiles: the wrapped property is
// not stored.
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
    @Transient @Clamped var level = 0
    init() {}
}

func raise(_ setting: Setting) -> Int {
    setting.level += 20
    return setting.level + Setting.attributes.count
}
