internal import CSQLite

/// Memory that the text and blob parameters of a statement run row after row
/// point into, so that SQLite binds them without a copy of its own
/// (`SQLITE_STATIC`).
///
/// Binding with `SQLITE_TRANSIENT` makes SQLite allocate, copy and free each
/// value: about 700 instructions a value, a seventh of inserting a row. Here
/// the bytes are copied once into a block that every row reuses.
///
/// The rule that keeps it sound: a statement reads its parameters only while
/// it steps, so the bytes of a row must stay put from its binding until its
/// last step. ``beginRow()`` starts the next row and reuses the memory, so call
/// it only once the previous row has run; a block outgrown mid-row is kept
/// until then. Parameters bound through the arena still point into it after
/// the loop: ``finish(_:)`` clears those statements' bindings, so that no
/// statement is left pointing at freed memory.
///
/// In debug builds ``beginRow()`` overwrites the bytes it gives back, so a
/// statement still reading a finished row's parameters reads garbage a test
/// sees, rather than the right bytes by luck.
final class BindingArena {
    // unsafe(bound-until-stepped): the blocks are the arena's own; a row's
    // bytes stay until the next row begins, and `finish` clears the bindings
    // that point into them before the arena goes.
    private var block: UnsafeMutableRawPointer
    private var capacity: Int
    private var used = 0
    /// Outgrown blocks the current row's parameters may still point into.
    private var retired: [UnsafeMutableRawPointer] = []

    init(capacity: Int = 4096) {
        self.capacity = capacity
        block = .allocate(byteCount: capacity, alignment: 16)  // unsafe(bound-until-stepped)
    }

    deinit {
        // unsafe(bound-until-stepped): `finish` cleared every binding into these.
        block.deallocate()
        for old in retired { old.deallocate() }
    }

    /// Starts a row: the previous row has run, so its bytes can go.
    @inline(__always)
    func beginRow() {
        #if DEBUG
        // The checked copy of the rule: a statement that still reads the
        // previous row's parameters now reads 0xA5 bytes.
        block.initializeMemory(as: UInt8.self, repeating: 0xA5, count: used)
        #endif
        used = 0
        if !retired.isEmpty {
            // unsafe(bound-until-stepped): the previous row has run.
            for old in retired { old.deallocate() }
            retired.removeAll(keepingCapacity: true)
        }
    }

    /// Copies `bytes` in and returns where they now are, valid until the
    /// row after next begins.
    func store(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawPointer {
        if used + bytes.count > capacity {
            retired.append(block)
            capacity = max(capacity * 2, bytes.count)
            // unsafe(bound-until-stepped): the outgrown block is kept until the row has run.
            block = .allocate(byteCount: capacity, alignment: 16)
            used = 0
        }
        let destination = block + used
        if let source = bytes.baseAddress { destination.copyMemory(from: source, byteCount: bytes.count) }
        used += bytes.count
        return UnsafeRawPointer(destination)
    }

    /// Clears the bindings of the statements that were bound through the
    /// arena, which would otherwise point into it once it is gone.
    func finish(_ statements: some Sequence<Statement>) {
        for statement in statements { sqlite3_clear_bindings(statement.handle) }
    }
}

extension Statement {
    /// Binds `value` as ``bind(_:at:)`` does, a text or blob by pointing into
    /// `arena` (see ``BindingArena`` for how long that stays valid).
    @inline(__always)
    func bind(_ value: SQLValue, at index: Int32, in arena: BindingArena) throws {
        let result: Int32
        switch value {
        case .text(var text):
            result = text.withUTF8 { buffer -> Int32 in
                // The explicit byte count keeps NUL bytes inside the text; an
                // empty text is still text, not NULL.
                guard buffer.count > 0 else { return sqlite3_bind_text(handle, index, "", 0, literecord_sqlite_transient()) }
                // unsafe(bound-until-stepped): bound without a destructor
                // (SQLITE_STATIC): SQLite reads the arena's copy until the
                // row's last step, and the arena keeps it that long.
                let bytes = arena.store(UnsafeRawBufferPointer(buffer))
                return sqlite3_bind_text64(
                    // unsafe(bound-until-stepped): the arena's copy, as text bytes.
                    handle, index, bytes.assumingMemoryBound(to: CChar.self), sqlite3_uint64(buffer.count), nil,
                    UInt8(SQLITE_UTF8))
            }
        case .blob(let data) where !data.isEmpty:
            result = data.withUnsafeBytes { buffer -> Int32 in
                let bytes = arena.store(buffer)  // unsafe(bound-until-stepped): as for text
                return sqlite3_bind_blob64(handle, index, bytes, sqlite3_uint64(buffer.count), nil)
            }
        default:
            try bind(value, at: index)
            return
        }
        guard result == SQLITE_OK else {
            throw SQLiteError(resultCode: result, db: connection.handle, sql: sql)
        }
    }
}
