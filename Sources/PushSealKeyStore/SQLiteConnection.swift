import PushSealKeyDirectory
#if canImport(SQLite3)
internal import SQLite3
#else
internal import CSQLite
#endif
internal import CSQLiteShims
internal import PushSealPlatform

/// One SQLite connection to a store file, used by one thread at a time (its owner serializes the
/// calls: ``DeviceKeyStore`` behind its lock), hence `SQLITE_OPEN_NOMUTEX`. A store instance keeps one
/// for its lifetime; every call runs one short transaction on it (the rollback journal holds no
/// file lock between transactions: the iOS 0xdead10cc discipline, no file lock outlives a call).
/// Statements are prepared once and kept (``withStatement(_:_:)``) until ``close()``.
final class SQLiteConnection {
    /// The longest one connection (one store call: its pragmas and its transaction together)
    /// waits for other processes' locks before `SQLITE_BUSY` reaches the caller.
    static let busyWaitMilliseconds: Int32 = 15_000

    /// `SQLITE_CONSTRAINT_PRIMARYKEY` and `SQLITE_CONSTRAINT_UNIQUE` (macros Swift cannot import).
    static let constraintPrimaryKey = SQLITE_CONSTRAINT | (6 << 8)
    static let constraintUnique = SQLITE_CONSTRAINT | (8 << 8)

    /// The most statements kept prepared (the store uses a few dozen distinct ones).
    static let maximumCachedStatements = 64

    private var handle: OpaquePointer?
    /// When the current call's busy wait ends (monotonic clock, milliseconds).
    private var busyDeadline: Int64
    /// Prepared statements with their SQL text, in order of first use (the header check's and
    /// BEGIN/COMMIT first), reset and unbound between uses. Found by a linear scan comparing
    /// the text: hashing the SQL of each statement of a call cost microseconds per lookup (perf).
    private var statements: [(sql: String, handle: OpaquePointer, inUse: Bool)] = []
    /// The file this connection opened (stat'ed just before opening it), nil when unknown.
    let identity: FileSystem.Identity?
    /// The file's ``dataVersion()`` when a call on this connection last found the header to be
    /// this store's; nil before the first check and after any failed call. Set and read by
    /// ``DeviceKeyStore`` (its session), with its lock held.
    var checkedDataVersion: UInt32?

    /// Opens the existing database file at `path` read-write (SQLite falls back to read-only
    /// when the file is not writable). Never creates the file: creation is done by the caller
    /// with an exclusive 0600 `open`.
    init(path: String) throws(KeyDirectoryError) {
        busyDeadline = Self.monotonicMilliseconds() + Int64(Self.busyWaitMilliseconds)
        identity = FileSystem.identity(path)
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE | SQLITE_OPEN_EXRESCODE
        let status = sqlite3_open_v2(path, &db, flags, nil)
        handle = db
        guard status == SQLITE_OK, db != nil else {
            var error = Self.error(status, db: db)
            if status & 0xFF == SQLITE_CANTOPEN, let db {
                // Say why the file could not be opened, in the store's terms.
                let code = sqlite3_system_errno(db)
                if code == ENOENT {
                    error = .storeNotFound("\(path) does not exist")
                } else if code != 0 {
                    error = .locked("cannot open \(path): \(Errno.message(code))")
                }
            }
            close()
            throw error
        }
        sqlite3_extended_result_codes(db, 1)
        var ignored: Int32 = 0
        // Hardening against a tampered file: no schema-embedded SQL functions, no triggers,
        // no writable schema.
        _ = pushseal_sqlite3_db_config_int(db, SQLITE_DBCONFIG_DEFENSIVE, 1, &ignored)
        _ = pushseal_sqlite3_db_config_int(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, &ignored)
        _ = pushseal_sqlite3_db_config_int(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, &ignored)
        do {
            // secure_delete: freed pages are overwritten with zeros, so removed (sealed) keys and
            // pruned duplicate-log entries do not linger in the file's free pages.
            // synchronous=EXTRA: every write (keys, records, identities; the duplicate log is a
            // file of its own) syncs the journal, the database and, after the journal's unlink
            // (the commit point), the directory, so a committed write survives a power loss
            // (Docs/KEY-STORE.md §4, crash safety).
            // cache_size = -8192: the page cache may grow to 8 MiB (SQLite's default is 2 MiB) —
            // a kept connection on a large provider store keeps the index and row pages of
            // ~1,000 hot conversations; a device store (a few hundred KiB) never fills either.
            // Pragmas read the schema, so they wait for locks too: under the same busy wait.
            try whileBusy { () throws(KeyDirectoryError) in
                try execute("PRAGMA secure_delete = ON; PRAGMA synchronous = EXTRA; PRAGMA cell_size_check = ON; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -8192")
            }
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Finalizes the kept statements and closes the connection.
    func close() {
        // A statement in use is finalized by its ``withStatement(_:_:)`` when that returns.
        for statement in statements where !statement.inUse { sqlite3_finalize(statement.handle) }
        statements = []
        if let db = handle {
            sqlite3_close_v2(db)
            handle = nil
        }
    }

    /// Starts a new store call: its statements share a fresh busy wait of
    /// ``busyWaitMilliseconds``.
    func beginCall() {
        busyDeadline = Self.monotonicMilliseconds() + Int64(Self.busyWaitMilliseconds)
    }

    /// True when SQLite opened the file read-only (the file is not writable by this process).
    var isReadOnly: Bool {
        guard let db = handle else { return true }
        return sqlite3_db_readonly(db, "main") == 1
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int {
        guard let db = handle else { return 0 }
        return Int(sqlite3_changes(db))
    }

    /// Runs SQL without results (one or more statements).
    func execute(_ sql: String) throws(KeyDirectoryError) {
        guard let db = handle else { throw Self.closedError }
        let status = sqlite3_exec(db, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw Self.error(status, db: db) }
    }

    /// The statement that starts a read transaction (see ``dataVersion()``): the header's first
    /// field, the statement the header check also runs first.
    private static let startReadingSQL = "PRAGMA application_id"

    /// The data version of the file as the current transaction sees it
    /// (`SQLITE_FCNTL_DATA_VERSION`). SQLite changes it whenever it drops its page cache because
    /// the file changed — it compares the file change counter (header bytes 24–39) when a
    /// transaction takes its shared lock, so any commit by another connection or process is
    /// seen — and when this connection commits. An unchanged value therefore means this
    /// connection reads exactly the pages (page 1, the schema, the meta table) it read last time.
    ///
    /// Runs the header's first statement first: a deferred `BEGIN` takes no lock and reads
    /// nothing, and the value is only current once the transaction has read the file. Call
    /// inside a transaction.
    func dataVersion() throws(KeyDirectoryError) -> UInt32 {
        guard let db = handle else { throw Self.closedError }
        try withStatement(Self.startReadingSQL) { statement throws(KeyDirectoryError) in _ = try statement.step() }
        var version: UInt32 = 0
        let status = sqlite3_file_control(db, "main", SQLITE_FCNTL_DATA_VERSION, &version)
        guard status == SQLITE_OK else { throw Self.error(status, db: db) }
        return version
    }

    /// The integer value of `PRAGMA name` (for header fields: application_id, user_version).
    func integerPragma(_ name: StaticString) throws(KeyDirectoryError) -> Int64 {
        try withStatement("PRAGMA \(name)") { statement throws(KeyDirectoryError) in
            _ = try statement.step()
            return statement.int64(0)
        }
    }

    /// Hands the prepared statement for `sql` to `body` — prepared on first use and kept, then
    /// reused — and resets it and clears its bindings whatever happens (a statement left
    /// unreset would keep its read transaction open). A statement in use (a nested call with the
    /// same SQL) is not shared: the nested one is prepared for that use only.
    func withStatement<R>(_ sql: String, _ body: (SQLiteStatement) throws(KeyDirectoryError) -> R) throws(KeyDirectoryError) -> R {
        guard let db = handle else { throw Self.closedError }
        let raw: OpaquePointer
        // The byte count first (O(1) for native strings): most kept statements differ in length.
        let byteCount = sql.utf8.count
        var cachedIndex = statements.firstIndex { !$0.inUse && $0.sql.utf8.count == byteCount && $0.sql == sql }
        if let index = cachedIndex {
            raw = statements[index].handle
            statements[index].inUse = true
        } else {
            var prepared: OpaquePointer?
            let status = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
            guard status == SQLITE_OK, let prepared else {
                if let prepared { sqlite3_finalize(prepared) }
                throw Self.error(status, db: db)
            }
            raw = prepared
            if statements.count < Self.maximumCachedStatements {
                statements.append((sql: sql, handle: prepared, inUse: true))
                cachedIndex = statements.count - 1
            }
        }
        defer {
            sqlite3_reset(raw)
            sqlite3_clear_bindings(raw)
            if handle == nil || cachedIndex == nil {
                sqlite3_finalize(raw)  // closed meanwhile (the kept statements are gone), or not kept
            } else if let index = cachedIndex {
                statements[index].inUse = false
            }
        }
        return try body(SQLiteStatement(handle: raw, db: db))
    }

    /// Whether the file is in WAL mode (someone switched it; the store itself never does).
    func isInWALMode() throws(KeyDirectoryError) -> Bool {
        try withStatement("PRAGMA journal_mode") { statement throws(KeyDirectoryError) -> Bool in
            guard try statement.step() else { return false }
            return statement.textBytes(0) == Array("wal".utf8)
        }
    }

    /// Runs one SQL statement without results through its kept prepared statement.
    private func run(_ sql: String) throws(KeyDirectoryError) {
        try withStatement(sql) { statement throws(KeyDirectoryError) in _ = try statement.step() }
    }

    /// The kind of transaction: deferred (reads) or immediate (writes: the write lock is
    /// taken at BEGIN, so two writers never deadlock on a lock upgrade).
    enum TransactionKind {
        case read
        /// A write at `synchronous = EXTRA` (keys, records, identities): the journal is synced
        /// before its header is written and synced again, then the database, then the
        /// directory after the journal's unlink; the file is never left damaged, and a commit
        /// that returned survives a power loss (Docs/KEY-STORE.md §4).
        case write
    }

    /// Runs `body` inside one transaction and commits; rolls back if anything throws.
    ///
    /// `SQLITE_BUSY` — at `BEGIN IMMEDIATE`, in a statement or at `COMMIT` — rolls the
    /// transaction back and runs it again, within the connection's busy wait
    /// (``whileBusy(_:)``). `body` must therefore have no effects outside the transaction.
    func transaction<R>(_ kind: TransactionKind, _ body: () throws(KeyDirectoryError) -> R) throws(KeyDirectoryError) -> R {
        try whileBusy { () throws(KeyDirectoryError) -> R in
            do throws(KeyDirectoryError) {
                try run(kind == .read ? "BEGIN DEFERRED" : "BEGIN IMMEDIATE")
                let result = try body()
                try run("COMMIT")
                return result
            } catch {
                rollback()
                throw error
            }
        }
    }

    /// Runs `body` (statements on this connection) until it does not fail with `SQLITE_BUSY`
    /// or `SQLITE_LOCKED`, for as long as the connection's busy wait lasts: every statement
    /// of a call, pragmas included, shares one bound of ``busyWaitMilliseconds``. SQLite's busy
    /// handler waits inside an attempt (up to what is left of the bound); a busy error that
    /// still surfaces (SQLite returns it without waiting when waiting could deadlock) is retried
    /// after a short random pause, so that retrying processes do not collide again in lock step.
    /// When the bound is used up, the busy error reaches the caller saying how long it waited.
    func whileBusy<R>(_ body: () throws(KeyDirectoryError) -> R) throws(KeyDirectoryError) -> R {
        while true {
            let remaining = busyDeadline - Self.monotonicMilliseconds()
            if let db = handle { sqlite3_busy_timeout(db, Int32(clamping: max(remaining, 1))) }
            do {
                return try body()
            } catch let error {
                guard case let .sqlite(code, extended, message) = error, Self.isBusy(error) else { throw error }
                guard busyDeadline - Self.monotonicMilliseconds() > 0 else {
                    throw .sqlite(
                        code: code, extendedCode: extended,
                        message: "\(message) (waited \(Self.busyWaitMilliseconds / 1000) s for another process's lock)")
                }
                _ = usleep(1_000 + UInt32.random(in: 0..<20_000))
            }
        }
    }

    /// A monotonic clock in milliseconds (for the busy deadline; unaffected by clock changes).
    private static func monotonicMilliseconds() -> Int64 { Int64(MonotonicClock.milliseconds()) }

    private func rollback() {
        guard let db = handle, sqlite3_get_autocommit(db) == 0 else { return }
        _ = sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
    }

    private static func isBusy(_ error: KeyDirectoryError) -> Bool {
        guard case let .sqlite(code, _, _) = error else { return false }
        return code == SQLITE_BUSY || code == SQLITE_LOCKED
    }

    private static let closedError = KeyDirectoryError.sqlite(code: SQLITE_MISUSE, extendedCode: SQLITE_MISUSE, message: "connection is closed")

    /// The error for `status`, with SQLite's extended code and message when a handle exists.
    static func error(_ status: Int32, db: OpaquePointer?) -> KeyDirectoryError {
        let extended = db.map { sqlite3_extended_errcode($0) } ?? status
        let message: String
        if let db, let text = sqlite3_errmsg(db) {
            message = String(cString: text)
        } else if let text = sqlite3_errstr(status) {
            message = String(cString: text)
        } else {
            message = "unknown error"
        }
        // With extended result codes on, `status` may itself be extended; the primary code is
        // its low byte.
        return .sqlite(code: status & 0xFF, extendedCode: extended == 0 ? status : extended, message: message)
    }
}

/// A prepared statement, valid only inside ``SQLiteConnection/withStatement(_:_:)``.
struct SQLiteStatement {
    let handle: OpaquePointer
    let db: OpaquePointer

    /// Binds an integer to the 1-based parameter `index`.
    func bind(_ index: Int32, _ value: Int64) throws(KeyDirectoryError) {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    /// Binds an integer or NULL.
    func bind(_ index: Int32, _ value: Int64?) throws(KeyDirectoryError) {
        if let value { try bind(index, value) } else { try check(sqlite3_bind_null(handle, index)) }
    }

    /// Binds the UTF-8 bytes of `value` as TEXT (exact bytes, embedded NULs included).
    func bind(_ index: Int32, text value: String) throws(KeyDirectoryError) {
        try bind(index, textBytes: Array(value.utf8))
    }

    /// Binds a string or NULL.
    func bind(_ index: Int32, text value: String?) throws(KeyDirectoryError) {
        if let value { try bind(index, text: value) } else { try check(sqlite3_bind_null(handle, index)) }
    }

    /// Binds raw bytes as TEXT.
    func bind(_ index: Int32, textBytes bytes: [UInt8]) throws(KeyDirectoryError) {
        let status = bytes.withUnsafeBufferPointer { buffer -> Int32 in
            // A nil pointer would bind NULL: bind an empty string explicitly.
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                return sqlite3_bind_text(handle, index, "", 0, pushseal_sqlite3_transient())
            }
            return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                sqlite3_bind_text(handle, index, $0, Int32(buffer.count), pushseal_sqlite3_transient())
            }
        }
        try check(status)
    }

    /// Binds bytes as a BLOB, or NULL.
    func bind(_ index: Int32, optionalBlob bytes: [UInt8]?) throws(KeyDirectoryError) {
        if let bytes { try bind(index, blob: bytes) } else { try check(sqlite3_bind_null(handle, index)) }
    }

    /// Binds bytes as a BLOB.
    func bind(_ index: Int32, blob bytes: [UInt8]) throws(KeyDirectoryError) {
        let status = bytes.withUnsafeBytes { buffer -> Int32 in
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                return sqlite3_bind_zeroblob(handle, index, 0)
            }
            return sqlite3_bind_blob(handle, index, base, Int32(buffer.count), pushseal_sqlite3_transient())
        }
        try check(status)
    }

    /// Advances: true when a row is available, false when the statement is done.
    func step() throws(KeyDirectoryError) -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteConnection.error(status, db: db)
        }
    }

    /// Resets the statement and clears its bindings, for another execution.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// True when column `index` (0-based) of the current row is NULL.
    func isNull(_ index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// Column `index` as an integer.
    func int64(_ index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// Column `index` as an integer, nil when NULL.
    func optionalInt64(_ index: Int32) -> Int64? {
        isNull(index) ? nil : int64(index)
    }

    /// Column `index` as raw bytes (BLOB or TEXT).
    func bytes(_ index: Int32) -> [UInt8] {
        // Ask for the pointer first, then the size (the order SQLite documents).
        guard let pointer = sqlite3_column_blob(handle, index) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, index))
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Column `index` as the exact bytes of a TEXT value.
    func textBytes(_ index: Int32) -> [UInt8] {
        guard let pointer = sqlite3_column_text(handle, index) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, index))
        return Array(UnsafeBufferPointer(start: pointer, count: count))
    }

    /// Column `index` as a string (invalid UTF-8 repaired), nil when NULL.
    func optionalText(_ index: Int32) -> String? {
        isNull(index) ? nil : String(decoding: textBytes(index), as: UTF8.self)
    }

    private func check(_ status: Int32) throws(KeyDirectoryError) {
        guard status == SQLITE_OK else { throw SQLiteConnection.error(status, db: db) }
    }
}
