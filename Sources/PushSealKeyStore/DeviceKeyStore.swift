import PushSealCore
import PushSealKeyDirectory
#if canImport(SQLite3)
internal import SQLite3
#else
internal import CSQLite
internal import PushSealPlatform
#endif

/// The device's keychain-like store of conversation keys on SQLite, shared by several processes
/// (an app and its notification extension): key lookup by kid, the duplicate log, the device key,
/// the pinned provider keys and bundle install. The provider's key directory on the same file
/// format (rotation, the current key, provider key pairs, device registrations) is
/// `SQLiteKeyDirectory` (module PushSealKeyDirectorySQLite), which a receiver does not link.
///
/// Items are (conversation, epoch) → K, indexed by key id, with a label and created/not-after
/// times. Every K is sealed at rest under the store master key with associated data binding its
/// whole row (kid, conversation, epoch, created, not-after, label). The master key is loaded and checked once, in `init`, and kept
/// in zeroing memory. An instance keeps one SQLite connection to the file (one open file
/// descriptor, no file lock between calls) with its statements prepared once; every call runs one
/// short transaction on it (`BEGIN IMMEDIATE` for writes), first checking that the path still
/// names the file the connection has open (a store re-created or replaced underneath is reopened)
/// and that its header is still this store's. Calls may come from any thread (one at a time per
/// instance, behind a lock) and any number of processes at once. See Docs/KEY-STORE.md.
public final class DeviceKeyStore: KeyDirectoryStorage, Sendable {
    /// The database file's name inside the store directory.
    public static let fileName = "pushseal-keys.sqlite3"
    /// The newest file format version this code reads and writes.
    public static let supportedFileVersion: Int64 = Schema.currentVersion
    /// The longest a call waits for another process's lock on the file (all its SQLite
    /// statements together, pragmas included) before it fails with `SQLITE_BUSY`: 15 seconds.
    public static let lockWaitSeconds = Int(SQLiteConnection.busyWaitMilliseconds / 1000)
    /// How long retired epochs are kept after their retire-by time before ``purgeExpired(gracePeriod:)``
    /// deletes them: 31 days (longer than APNs' 30 days and FCM's 28 days of store-and-forward).
    public static let defaultGracePeriod = KeyDirectoryLimits.defaultGracePeriod
    /// The longest conversation id, in UTF-8 bytes (the content schema's limit for `cid`).
    public static let maximumConversationByteCount = KeyDirectoryLimits.maximumConversationByteCount

    /// The store directory.
    public let directory: String
    /// The database file (`directory/pushseal-keys.sqlite3`).
    public let path: String
    /// Whether this `init` initialized the store: true for exactly one of any number of
    /// processes that create the same store at once (it is decided inside the initializing
    /// write transaction), false when the store already existed.
    public let createdStore: Bool

    let masterKey: MasterKey
    let deliveryLogKey: SecretKey
    /// The duplicate log's file beside the database.
    let deliveryLog: DeliveryLogFile
    let epochRecordKey: SecretKey
    /// The verifier this instance checked its master key against.
    let verifier: [UInt8]
    let clock: SecondsClock
    /// The instance's kept connection, behind its lock.
    private let kept: KeptConnection

    /// Opens the store at `directory` (file `directory/pushseal-keys.sqlite3`), creating the
    /// directory (0700), the file (0600) and, through the source, the master key when `create`
    /// is true and they do not exist yet. Without `create`, nothing is ever created.
    ///
    /// Checks the file's format version (migrating an older one), and checks the master key
    /// against the store's verifier, so a wrong key is `KeyDirectoryError.locked(_:)` here rather
    /// than every item looking corrupted later. The connection opened here is kept for the
    /// instance's later calls (see ``DeviceKeyStore``).
    public init(
        directory: String, masterKey source: MasterKeySource, create: Bool = false, clock: @escaping SecondsClock = systemClock
    ) throws(KeyDirectoryError) {
        guard !directory.isEmpty else { throw .invalidArgument("the store directory path is empty") }
        let path = FileSystem.join(directory, Self.fileName)

        // For a new store the master key comes before the store file, so that a source that
        // fails leaves no empty store behind (nor the directory, when it was just created:
        // the key file may live inside it).
        var loadedKey: MasterKey?
        if try Self.directoryIsMissing(directory, create: create) {
            if let failure = FileSystem.makeDirectories(directory) {
                throw .locked("cannot create directory \(failure.path): \(Errno.message(failure.errno))")
            }
            do {
                loadedKey = try source.load(mayCreate: true)
            } catch {
                FileSystem.removeEmptyDirectory(directory)
                throw error
            }
        }
        switch FileSystem.status(path) {
        case .regularFile:
            break
        case .missing:
            guard create else { throw .storeNotFound("\(path) does not exist") }
            if loadedKey == nil { loadedKey = try source.load(mayCreate: true) }
            if let code = FileSystem.createExclusively(path) {
                throw .locked("cannot create \(path): \(Errno.message(code))")
            }
        case .directory, .other:
            throw .invalidStore("\(path) is not a regular file")
        case let .failed(code):
            throw .locked("cannot access \(path): \(Errno.message(code))")
        }

        let connection = try Self.connect(path)
        var keepConnection = false
        defer { if !keepConnection { connection.close() } }
        Self.preferRollbackJournal(connection)
        let header = try connection.transaction(.read) { () throws(KeyDirectoryError) in try Schema.readHeader(connection) }
        if header.isUninitialized, !create {
            throw .storeNotFound("\(path) exists but was never initialized")
        }
        try Schema.validate(header, path: path)

        let key: MasterKey
        let verifier: [UInt8]
        var created = false
        if header.isUninitialized || header.version < Schema.currentVersion {
            if let loadedKey { key = loadedKey } else { key = try source.load(mayCreate: header.isUninitialized) }
            // Initialize or migrate in one write transaction, re-reading the header inside it:
            // another process may have done it in the meantime.
            (verifier, created) = try connection.transaction(.write) { () throws(KeyDirectoryError) -> ([UInt8], Bool) in
                let current = try Schema.readHeader(connection)
                try Schema.validate(current, path: path)
                if current.isUninitialized {
                    let fresh = ItemSealing.makeVerifier(masterKey: key)
                    try Schema.migrate(connection, from: current, verifier: fresh, masterKey: key, directory: directory)
                    return (fresh, true)
                }
                let existing = current.verifier!  // present: checked by validate
                guard ItemSealing.verify(existing, masterKey: key) else { throw KeyDirectoryLimits.wrongKey(source) }
                if current.version < Schema.currentVersion {
                    try Schema.migrate(connection, from: current, verifier: nil, masterKey: key, directory: directory)
                }
                return (existing, false)
            }
        } else {
            if let loadedKey { key = loadedKey } else { key = try source.load(mayCreate: false) }
            verifier = header.verifier!  // present: checked by validate
            guard ItemSealing.verify(verifier, masterKey: key) else { throw KeyDirectoryLimits.wrongKey(source) }
        }

        self.directory = directory
        self.path = path
        self.createdStore = created
        self.masterKey = key
        self.deliveryLogKey = ItemSealing.deliveryLogKey(masterKey: key)
        self.deliveryLog = DeliveryLogFile(directory: directory, logKey: deliveryLogKey)
        self.epochRecordKey = ItemSealing.epochRecordKey(masterKey: key)
        self.verifier = verifier
        self.clock = clock
        self.kept = KeptConnection(connection)
        keepConnection = true
    }

    // MARK: - Items

    /// Adds `key` as epoch `epoch` of `conversation` — by default the conversation's next epoch
    /// (its highest + 1; 1 for a conversation without keys), chosen inside the same write
    /// transaction, so processes adding at once get distinct, consecutive epochs without retrying.
    /// Throws `KeyDirectoryError.duplicateItem` when the store already has this key id or this
    /// (conversation, epoch).
    @discardableResult
    public func add(
        _ key: ConversationKey, conversation: String, epoch: Int64? = nil, label: String? = nil, notAfter: Int64? = nil
    ) throws(KeyDirectoryError) -> KeyItem {
        try rules.add(key, conversation: conversation, epoch: epoch, label: label, notAfter: notAfter)
    }

    /// The key with id `id`, unsealed and checked (whether or not its not-after time passed).
    /// Throws `KeyDirectoryError.itemNotFound` when absent, `KeyDirectoryError.corruptedItem(_:)` when
    /// its row was tampered with.
    public func key(for id: KeyID) throws(KeyDirectoryError) -> StoredKey {
        try rules.key(for: id)
    }

    /// Metadata of every item (or of one conversation's), ordered by conversation bytes and
    /// epoch. Each row is authenticated (its key is unsealed in zeroing memory and dropped), so
    /// an edited label, time or epoch is `KeyDirectoryError.corruptedItem(_:)`; never returns a secret.
    public func items(conversation: String? = nil) throws(KeyDirectoryError) -> [KeyItem] {
        try rules.items(conversation: conversation)
    }

    /// Removes the item with id `keyID`; `KeyDirectoryError.itemNotFound` when absent. Removing a
    /// conversation's newest epoch leaves it without a current key until it is rotated (it never
    /// falls back to an older epoch).
    public func remove(keyID: KeyID) throws(KeyDirectoryError) {
        try rules.remove(keyID: keyID)
    }

    /// Removes every epoch of `conversation`, its epoch record and its high-water mark (nothing
    /// about it stays in the file: a later rotation starts at epoch 1 again); returns how many
    /// items were removed (0 is fine).
    @discardableResult
    public func removeConversation(_ conversation: String) throws(KeyDirectoryError) -> Int {
        try rules.removeConversation(conversation)
    }

    /// Logout wipe: removes every key in one transaction, then empties the duplicate log (its
    /// own file, reset right after the commit); returns the number of keys removed. With
    /// `secure_delete`, the freed pages are zeroed. (For a complete erase also destroy the master
    /// key: see Docs/KEY-STORE.md.)
    @discardableResult
    public func removeAll() throws(KeyDirectoryError) -> Int {
        let removed = try session(.write) { connection throws(KeyDirectoryError) -> Int in try Self.deleteEveryKey(connection) }
        try deliveryLog.reset()
        return removed
    }

    /// Deletes every key with everything about them (epoch records and marks, bundle records)
    /// inside the caller's write transaction; returns how many keys. The logout wipe and the
    /// device-key replacement share it; both reset the duplicate log after the commit.
    static func deleteEveryKey(_ connection: SQLiteConnection) throws(KeyDirectoryError) -> Int {
        try connection.execute("DELETE FROM keys")
        let removed = connection.changes
        try connection.execute("DELETE FROM epochs")
        try connection.execute("DELETE FROM epoch_marks")
        try connection.execute("DELETE FROM bundle_records")
        return removed
    }

    /// Deletes every item retired more than `gracePeriod` seconds ago (`notAfter + gracePeriod <
    /// now`); returns how many. The default grace period (31 days) covers the push services'
    /// store-and-forward time, so a notification sent just before a rotation still opens when it
    /// is delivered late. See Docs/KEY-STORE.md for what makes a purge durable.
    @discardableResult
    public func purgeExpired(gracePeriod: Int64 = DeviceKeyStore.defaultGracePeriod) throws(KeyDirectoryError) -> Int {
        try rules.purgeExpired(gracePeriod: gracePeriod)
    }

    // MARK: - Internals

    /// The rules of every key directory over this store's file.
    package var rules: KeyDirectoryRules<DeviceKeyStore> {
        KeyDirectoryRules(storage: self, masterKey: masterKey, recordKey: epochRecordKey, verifier: verifier, clock: clock)
    }

    /// The rules' read transaction: one ``session(_:_:)``.
    package func read<R>(_ body: (SQLiteKeyDirectoryTransaction) throws(KeyDirectoryError) -> R) throws(KeyDirectoryError) -> R {
        let recordKey = epochRecordKey
        return try session(.read) { connection throws(KeyDirectoryError) in try body(SQLiteKeyDirectoryTransaction(connection, recordKey: recordKey)) }
    }

    /// The rules' write transaction: one ``session(_:_:)`` with `BEGIN IMMEDIATE`, which locks the
    /// whole file whatever the scope.
    package func write<R>(
        _ scope: KeyDirectoryWriteScope, _ body: (SQLiteKeyDirectoryTransaction) throws(KeyDirectoryError) -> R
    ) throws(KeyDirectoryError) -> R {
        let recordKey = epochRecordKey
        return try session(.write) { connection throws(KeyDirectoryError) in try body(SQLiteKeyDirectoryTransaction(connection, recordKey: recordKey)) }
    }

    /// One call: one transaction on the kept connection that first checks the file is still this
    /// store. The connection is reopened first when the path no longer names the file it has
    /// open (re-created, replaced or removed underneath: reopening then fails as opening would),
    /// and dropped after an SQLite error, a header that is not this store's, or a file in WAL
    /// mode, so that the next call starts from a fresh one.
    ///
    /// The header (format version, verifier, journal mode) is checked when the file changed
    /// since the connection last checked it (``SQLiteConnection/dataVersion()``: a commit by
    /// any process, this one included); when it did not, SQLite serves the same cached pages
    /// and the check would read the same values, so it is skipped.
    func session<R>(
        _ kind: SQLiteConnection.TransactionKind, _ body: (SQLiteConnection) throws(KeyDirectoryError) -> R
    ) throws(KeyDirectoryError) -> R {
        try kept.lock.withLock { () throws(KeyDirectoryError) -> R in
            let connection: SQLiteConnection
            if let open = kept.connection, let identity = open.identity, FileSystem.identity(path) == identity {
                connection = open
                connection.beginCall()
            } else {
                kept.connection?.close()
                kept.connection = nil
                connection = try Self.connect(path)
                kept.connection = connection
            }
            var notThisStore = false
            var inWAL = false
            defer { if inWAL { kept.drop() } }
            do throws(KeyDirectoryError) {
                return try connection.transaction(kind) { () throws(KeyDirectoryError) -> R in
                    let version = try connection.dataVersion()
                    if version != connection.checkedDataVersion {
                        connection.checkedDataVersion = nil
                        let header = try Schema.readHeader(connection)
                        // A file switched to WAL underneath (known once the header was read): a WAL
                        // connection holds a lock on the `-shm` file for its whole life, so this one
                        // is closed after the call.
                        inWAL = try connection.isInWALMode()
                        do throws(KeyDirectoryError) {
                            try Self.requireCurrent(header, path: path)
                            let found = header.verifier!
                            if found != verifier, !ItemSealing.verify(found, masterKey: masterKey) {
                                throw .locked("the store at \(path) was re-created with another master key")
                            }
                        } catch {
                            notThisStore = true
                            throw error
                        }
                        if !inWAL { connection.checkedDataVersion = version }
                    }
                    return try body(connection)
                }
            } catch {
                connection.checkedDataVersion = nil
                if notThisStore { kept.drop() } else if case .sqlite = error { kept.drop() }
                throw error
            }
        }
    }

    /// A store instance's one connection and the lock that serializes its use. `connection` is
    /// only touched with `lock` held.
    final class KeptConnection: @unchecked Sendable {
        let lock = Lock()
        var connection: SQLiteConnection?

        init(_ connection: SQLiteConnection) { self.connection = connection }

        /// Closes the connection (with `lock` held); the next call opens a new one.
        func drop() {
            connection?.close()
            connection = nil
        }
    }

    /// The header must describe an initialized store at the current version.
    static func requireCurrent(_ header: Schema.Header, path: String) throws(KeyDirectoryError) {
        if header.isUninitialized { throw .storeNotFound("\(path) is not initialized") }
        try Schema.validate(header, path: path)
        guard header.version == Schema.currentVersion else {
            throw .invalidStore("\(path) has format version \(header.version); open the store again to migrate it")
        }
    }

    static func connect(_ path: String) throws(KeyDirectoryError) -> SQLiteConnection {
        try SQLiteConnection(path: path)
    }

    /// Whether the store directory still has to be created: throws unless it exists or may be
    /// created.
    private static func directoryIsMissing(_ directory: String, create: Bool) throws(KeyDirectoryError) -> Bool {
        switch FileSystem.status(directory) {
        case .directory:
            return false
        case .missing:
            guard create else { throw .storeNotFound("directory \(directory) does not exist") }
            return true
        case .regularFile, .other:
            throw .locked("\(directory) is not a directory")
        case let .failed(code):
            throw .locked("cannot access directory \(directory): \(Errno.message(code))")
        }
    }

    /// A file someone switched to WAL is switched back to the rollback journal (best effort; see
    /// Docs/KEY-STORE.md §4 for why the store uses DELETE mode).
    static func preferRollbackJournal(_ connection: SQLiteConnection) {
        guard !connection.isReadOnly else { return }
        try? connection.whileBusy { () throws(KeyDirectoryError) in
            let mode = try connection.withStatement("PRAGMA journal_mode") { statement throws(KeyDirectoryError) -> String? in
                try statement.step() ? statement.optionalText(0) : nil
            }
            if let mode, mode.lowercased() == "wal" {
                try connection.execute("PRAGMA journal_mode = DELETE")
            }
        }
    }

    /// One `keys` row as stored (the model's row type).
    typealias Row = KeyDirectoryRow
}

extension KeyDirectoryRow {
    /// A row from a `keys` statement.
    init(_ statement: SQLiteStatement) {
        self.init(
            kid: statement.bytes(0), conversation: statement.textBytes(1), epoch: statement.int64(2),
            label: statement.isNull(3) ? nil : statement.textBytes(3), createdAt: statement.int64(4),
            notAfter: statement.optionalInt64(5), sealed: statement.bytes(6))
    }
}
