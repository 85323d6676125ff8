internal import CSQLite

extension Connection {
    /// The first `count` bytes of the main database file, read through the
    /// file handle SQLite already holds (`SQLITE_FCNTL_FILE_POINTER`), so that
    /// no descriptor of the process's own is opened on the file: closing one
    /// would release every POSIX lock this process holds on it, those of
    /// other connections included (https://sqlite.org/howtocorrupt.html, §2.2).
    /// `nil` for an in-memory database or when the file is shorter.
    func mainFileHeader(count: Int) -> [UInt8]? {
        guard let handle else { return nil }
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK,
            let file, let methods = file.pointee.pMethods, let read = methods.pointee.xRead
        else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        let result = bytes.withUnsafeMutableBytes { buffer in
            read(file, buffer.baseAddress, Int32(count), 0)
        }
        return result == SQLITE_OK ? bytes : nil
    }
}
