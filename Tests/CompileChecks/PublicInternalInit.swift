// expect-error: 'init()' is less visible than the public class 'Draft', so it gets no 'create(in:)' (DefaultInitializable); make 'init()' public
// A public entity whose `init()` is internal loses
// `create(in:)`; the macro warns at the initializer (an error here, where
// warnings count as errors), with a fix-it making it public.
import Foundation
import LiteRecord

@Entity public final class Draft {
    public var text = ""
    init() {}
}
