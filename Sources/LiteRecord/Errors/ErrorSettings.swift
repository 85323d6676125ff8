import Synchronization

enum ErrorSettings {
    static let includesValues = Locked(false)
}
