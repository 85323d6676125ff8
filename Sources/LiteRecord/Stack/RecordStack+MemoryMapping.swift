import Synchronization

extension RecordStack {
    /// How many bytes of a store file each reader connection maps into
    /// memory (SQLite's `PRAGMA mmap_size`); `0`, the default, reads with
    /// `pread` as SQLite does by default. Applies to the file stores opened
    /// after it is set; a negative value counts as `0`.
    ///
    /// ```swift
    /// RecordStack.memoryMappedReadSize = 256 << 20   // up to 256 MiB per reader
    /// let stack = try RecordStack(storeAt: url, entities: [Note.self])
    /// ```
    ///
    /// Mapped reads are faster when queries run while another connection
    /// writes: every commit makes each reader drop its page cache, and a mapped
    /// reader finds the file's pages in memory instead of copying them in
    /// again (`make bench`'s `concurrent` case read 18% to 42% more queries a
    /// second, depending on the run). Only reader connections map the file;
    /// saves write as before.
    ///
    /// It is off by default because of what an error becomes. With `pread`, an
    /// I/O error reading the file is a ``LiteRecordError`` (`.storeUnavailable`
    /// or `.sqlite`) that the caller can handle; with the file mapped, the same
    /// error (a failing disk, a network volume going away, another process
    /// truncating the file under the mapping) is a `SIGBUS` signal that stops
    /// the process. Turn it on for a store on a local disk that no other
    /// program rewrites.
    public static var memoryMappedReadSize: Int {
        get { MemoryMapping.readSize.load(ordering: .relaxed) }
        set { MemoryMapping.readSize.store(max(0, newValue), ordering: .relaxed) }
    }
}

/// The reader connections' `mmap_size`, shared by the stacks opened after it is set.
enum MemoryMapping {
    static let readSize = Atomic<Int>(0)
}
