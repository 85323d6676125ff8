import Foundation

/// The calling thread's identity, for telling whether a lock is held by the
/// thread asking (a write's own code calling `close()`, a write's reads).
/// Never 0, which stands for "no thread".
enum ThreadIdentity {
    static var current: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }
}
