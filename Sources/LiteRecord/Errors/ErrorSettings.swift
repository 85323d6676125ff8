import Synchronization

enum ErrorSettings {
    static let includesValues = Mutex(false)
}
