public import PushSealCore
public import PushSealKeyStore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The provider's key directory on a PostgreSQL server, shared by every backend node: the same
/// model and guarantees as the SQLite `KeyStore` (keys by (conversation, epoch), indexed by
/// key id, each sealed under the master key with its whole row bound in, by the same
/// `ItemSealing`), so a row copied, swapped or edited is `KeyStoreError.corruptedItem(_:)`.
///
/// The master key stays local to each node (a key file or bytes); the server only ever sees
/// sealed keys. Rotations of one conversation are serialized by a transaction-scoped advisory
/// lock on the conversation, so any number of nodes rotating at once get distinct, consecutive
/// epochs. Every write notifies ``notificationChannel`` with the conversation (at commit), which
/// ``KeyDirectoryListener`` turns into cache invalidations.
///
/// Calls may come from any thread; each takes a pooled connection. A lost connection (server
/// restart, network) is retried with exponential backoff within ``Options/retrySeconds``; a
/// write whose commit was cut off is recognized on retry by its key id, never applied twice.
public final class PostgreSQLKeyDirectory: KeyDirectory, @unchecked Sendable {
    /// The `LISTEN/NOTIFY` channel every write notifies (payload: the conversation; empty after a
    /// purge, meaning any conversation).
    public static let notificationChannel = "pushseal_key_directory"
    /// The newest schema version this code reads and writes.
    public static let supportedSchemaVersion: Int64 = PostgreSQLSchema.currentVersion

    /// Connection and retry settings.
    public struct Options: Sendable {
        /// libpq's `connect_timeout` when the URI sets none: 10 seconds.
        public var connectTimeoutSeconds: Int
        /// How long a call keeps retrying a lost connection or a serialization failure before it
        /// fails with `KeyStoreError.serverUnavailable(_:)`: 15 seconds.
        public var retrySeconds: Double
        /// `statement_timeout` for this directory's sessions in milliseconds, nil for the server's
        /// (or the URI's) setting. A statement over it is `KeyStoreError.server(sqlState:message:)`
        /// with SQLSTATE 57014.
        public var statementTimeoutMilliseconds: Int?

        /// The settings; the defaults suit a provider backend.
        public init(connectTimeoutSeconds: Int = 10, retrySeconds: Double = 15, statementTimeoutMilliseconds: Int? = nil) {
            self.connectTimeoutSeconds = connectTimeoutSeconds
            self.retrySeconds = retrySeconds
            self.statementTimeoutMilliseconds = statementTimeoutMilliseconds
        }
    }

    /// The server (its password redacted in ``ConnectionURI/description``).
    public let uri: ConnectionURI
    /// Whether this `init` created the schema (true for exactly one of any number of nodes
    /// creating it at once).
    public let createdSchema: Bool
    /// The settings.
    public let options: Options

    let masterKey: SecretKey
    /// The master-key verifier this instance checked its key against; every write re-reads the
    /// directory's (``requireMasterKey(_:)``), so a node left on a rotated-away key stops.
    private let verifier: [UInt8]
    /// Tags the epoch records (``epochRecord(_:_:recordKey:)``).
    let epochRecordKey: SecretKey
    let clock: SecondsClock
    private let lock = Lock()
    private var idle: [PostgreSQLConnection] = []
    private static let maximumIdleConnections = 4

    /// Connects to the server at `uri` (`postgresql://…` or `postgres://…`, every libpq parameter
    /// passed through, TLS ones included), checks the schema version (migrating an older one) and
    /// the master key against the directory's verifier. With `create`, creates the schema (and,
    /// through the source, the master key) when the database has none; without it, a database
    /// without the tables is `KeyStoreError.storeNotFound(_:)`. A server that cannot be reached
    /// is `KeyStoreError.serverUnavailable(_:)` at once (no retry at start, no fallback).
    public init(
        uri text: String, masterKey source: MasterKeySource, create: Bool = false, clock: @escaping SecondsClock = systemClock,
        options: Options = Options()
    ) throws(KeyStoreError) {
        let uri = try ConnectionURI(text)
        self.uri = uri
        self.options = options
        self.clock = clock
        let connection = try Self.connect(uri, options)
        let (key, verifier, created) = try Self.transaction(connection) { () throws(KeyStoreError) -> (SecretKey, [UInt8], Bool) in
            try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int64(PostgreSQLSchema.migrationLock)])
            let state = try PostgreSQLSchema.read(connection)
            if state.version == 0 {
                guard create else {
                    throw .storeNotFound("the database at \(uri) has no PushSeal key directory (create it with create: true / 'pushseal store init')")
                }
                let key = try source.load(mayCreate: true)
                let verifier = ItemSealing.makeVerifier(masterKey: key)
                try PostgreSQLSchema.migrate(connection, from: state, verifier: verifier, masterKey: key)
                return (key, verifier, true)
            }
            guard state.version <= PostgreSQLSchema.currentVersion else {
                throw .unsupportedFileVersion(found: state.version, supported: PostgreSQLSchema.currentVersion)
            }
            guard let verifier = state.verifier, ItemSealing.isWellFormedVerifier(verifier) else {
                throw .invalidStore("the key directory at \(uri) has no well-formed master-key verifier")
            }
            let key = try source.load(mayCreate: false)
            guard ItemSealing.verify(verifier, masterKey: key) else { throw KeyStore.wrongKey(source) }
            if state.version < PostgreSQLSchema.currentVersion {
                try PostgreSQLSchema.migrate(connection, from: state, verifier: nil, masterKey: key)
            }
            return (key, verifier, false)
        }
        self.masterKey = key
        self.verifier = verifier
        self.epochRecordKey = ItemSealing.epochRecordKey(masterKey: key)
        self.createdSchema = created
        idle.append(connection)
    }

    // MARK: - KeyDirectory

    /// Adds `key` as epoch `epoch` of `conversation` (nil: the next epoch, under the
    /// conversation's lock). `KeyStoreError.duplicateItem` when the key id or the
    /// (conversation, epoch) exists.
    @discardableResult
    public func add(
        _ key: ConversationKey, conversation: String, epoch: Int64? = nil, label: String? = nil, notAfter: Int64? = nil
    ) throws(KeyStoreError) -> KeyItem {
        try KeyStore.check(conversation: conversation)
        if let epoch, epoch < 0 { throw .invalidArgument("epoch \(epoch) is negative") }
        let createdAt = clock()
        return try write(conversation: conversation) { connection, retrying throws(KeyStoreError) -> KeyItem in
            if retrying, let earlier = try self.ownEarlierWrite(key, conversation: conversation, connection) { return earlier.item }
            let epoch = if let epoch { epoch } else { try Self.nextEpoch(conversation, connection, recordKey: self.epochRecordKey) }
            let item = KeyItem(keyID: key.id, conversation: conversation, epoch: epoch, label: label, createdAt: createdAt, notAfter: notAfter)
            try Self.insert(item, sealed: ItemSealing.seal(key, binding: .init(item), masterKey: self.masterKey), connection)
            try Self.advanceEpochRecord(for: item, connection, recordKey: self.epochRecordKey)
            return item
        }
    }

    /// Rotates `conversation` (see `KeyDirectory.rotate(conversation:label:key:)`): earlier epochs
    /// are retired now. Serialized with every other node's writes to the conversation by its
    /// advisory lock.
    @discardableResult
    public func rotate(conversation: String, label: String? = nil, key supplied: ConversationKey? = nil) throws(KeyStoreError) -> StoredKey {
        try KeyStore.check(conversation: conversation)
        let now = clock()
        let retireAt = now
        let key = supplied ?? ConversationKey.generate()
        return try write(conversation: conversation) { connection, retrying throws(KeyStoreError) -> StoredKey in
            if retrying, let earlier = try self.ownEarlierWrite(key, conversation: conversation, connection) { return earlier }
            let epoch = try Self.nextEpoch(conversation, connection, recordKey: self.epochRecordKey)
            try self.retire(conversation: conversation, at: retireAt, connection)
            let item = KeyItem(keyID: key.id, conversation: conversation, epoch: epoch, label: label, createdAt: now, notAfter: nil)
            try Self.insert(item, sealed: ItemSealing.seal(key, binding: .init(item), masterKey: self.masterKey), connection)
            try Self.advanceEpochRecord(for: item, connection, recordKey: self.epochRecordKey)
            return StoredKey(key: key, item: item)
        }
    }

    /// The conversation's current key: its newest epoch, unsealed and checked, while it is live;
    /// `KeyStoreError.itemNotFound` once it is retired or removed, or when the conversation has
    /// no keys. Never an older epoch (SPEC §3.5: a member removed by the rotation may hold it):
    /// the newest epoch is the authenticated epoch record's, so a deleted or rolled-back newest
    /// row is `KeyStoreError.corruptedItem`, a deleted record `KeyStoreError.epochRecordMissing`.
    public func currentKey(conversation: String) throws(KeyStoreError) -> StoredKey {
        try KeyStore.check(conversation: conversation)
        let now = clock()
        let recordKey = epochRecordKey
        // One statement, so the newest row and the record come from one snapshot (a rotation
        // committed in between would otherwise look like a rolled-back row).
        let rows = try read { connection throws(KeyStoreError) in
            try connection.execute(
                """
                SELECT k.*, \(EpochRecord.columns.split(separator: ", ").map { "e.\($0)" }.joined(separator: ", "))
                FROM (SELECT $1::text AS conversation) AS wanted
                LEFT JOIN LATERAL (
                    SELECT \(Row.columns) FROM pushseal_keys WHERE conversation = wanted.conversation ORDER BY epoch DESC LIMIT 1
                ) AS k ON true
                LEFT JOIN pushseal_epochs AS e ON e.conversation = wanted.conversation
                """,
                [.text(conversation)])
        }
        let newestRow = rows.count == 1 && rows.bytes(0, 0) != nil ? try Row(rows, 0) : nil
        let record: EpochRecord?
        do throws(KeyStoreError) {
            record = try Self.checkedEpochRecord(rows, column: Row.columns.split(separator: ", ").count, recordKey: recordKey)
        } catch {
            throw rotatedAway(error)
        }
        // The newest epoch comes from the authenticated record, not from the rows (as on SQLite).
        guard let record else {
            // Rows without a record: the record (perhaps with the newest rows) was deleted. Not
            // the remaining rows' fault, and none of them may be served.
            if newestRow != nil { throw .epochRecordMissing(conversation: conversation) }
            throw .itemNotFound
        }
        if record.removed {
            // Removed through the API; a row above the removed epoch would have moved the record.
            if let newestRow, newestRow.epoch > record.epoch, let id = KeyID(bytes: newestRow.kid) { throw .corruptedItem(id) }
            throw .itemNotFound
        }
        // The newest row must be exactly the recorded one: not deleted, not above it.
        guard let newestRow, newestRow.epoch == record.epoch, newestRow.kid == record.kid else { throw .corruptedItem(record.keyID) }
        let newest = try unseal(newestRow)
        guard newest.item.isLive(at: now) else { throw .itemNotFound }
        return newest
    }

    /// The key with id `id`, unsealed and checked.
    public func key(for id: KeyID) throws(KeyStoreError) -> StoredKey {
        let rows = try read { connection throws(KeyStoreError) in
            try connection.execute("SELECT \(Row.columns) FROM pushseal_keys WHERE kid = $1", [.bytes(id.bytes)])
        }
        guard rows.count == 1 else { throw .itemNotFound }
        return try unseal(try Row(rows, 0))
    }

    /// Metadata of every item (or one conversation's), by conversation bytes and epoch; each row
    /// authenticated.
    public func items(conversation: String? = nil) throws(KeyStoreError) -> [KeyItem] {
        if let conversation { try KeyStore.check(conversation: conversation) }
        let rows = try read { connection throws(KeyStoreError) in
            if let conversation {
                return try connection.execute(
                    "SELECT \(Row.columns) FROM pushseal_keys WHERE conversation = $1 ORDER BY epoch", [.text(conversation)])
            }
            return try connection.execute("SELECT \(Row.columns) FROM pushseal_keys ORDER BY conversation COLLATE \"C\", epoch")
        }
        var items: [KeyItem] = []
        items.reserveCapacity(rows.count)
        for index in 0..<rows.count { items.append(try unseal(try Row(rows, index)).item) }
        return items
    }

    /// Removes the item with id `keyID` (under its conversation's lock: when it is the newest
    /// epoch, the epoch record is marked removed).
    public func remove(keyID: KeyID) throws(KeyStoreError) {
        let owner = try read { connection throws(KeyStoreError) in
            try connection.execute("SELECT conversation FROM pushseal_keys WHERE kid = $1", [.bytes(keyID.bytes)])
        }
        guard owner.count == 1, let name = owner.bytes(0, 0) else { throw .itemNotFound }
        let conversation = String(decoding: name, as: UTF8.self)
        let recordKey = epochRecordKey
        let removed = try write(conversation: conversation) { connection, _ throws(KeyStoreError) -> Int in
            let rows = try connection.execute(
                "DELETE FROM pushseal_keys WHERE kid = $1 AND conversation = $2 RETURNING epoch", [.bytes(keyID.bytes), .text(conversation)])
            if rows.count > 0 { try Self.markRemovedEpochRecord(conversation, connection, recordKey: recordKey) }
            return rows.count
        }
        guard removed > 0 else { throw .itemNotFound }
    }

    /// Removes every epoch of `conversation`, and its epoch record; returns how many.
    @discardableResult
    public func removeConversation(_ conversation: String) throws(KeyStoreError) -> Int {
        try KeyStore.check(conversation: conversation)
        return try write(conversation: conversation) { connection, _ throws(KeyStoreError) -> Int in
            let count = try connection.execute("DELETE FROM pushseal_keys WHERE conversation = $1 RETURNING epoch", [.text(conversation)]).count
            try connection.execute("DELETE FROM pushseal_epochs WHERE conversation = $1", [.text(conversation)])
            return count
        }
    }

    /// Deletes every item whose not-after time has passed; returns how many. Each affected
    /// conversation is locked (in one order, so purges never deadlock each other) before its rows
    /// go, and a removed newest epoch marks its epoch record removed.
    @discardableResult
    public func purgeExpired(gracePeriod: Int64 = KeyStore.defaultGracePeriod) throws(KeyStoreError) -> Int {
        guard let cutoff = try KeyStore.purgeCutoff(now: clock(), gracePeriod: gracePeriod) else { return 0 }
        let recordKey = epochRecordKey
        return try write(conversation: nil) { connection, _ throws(KeyStoreError) -> Int in
            let due = try connection.execute(
                "SELECT DISTINCT conversation COLLATE \"C\" AS c FROM pushseal_keys WHERE not_after IS NOT NULL AND not_after < $1 ORDER BY c",
                [.int64(cutoff)])
            var count = 0
            for index in 0..<due.count {
                let conversation = String(decoding: due.bytes(index, 0) ?? [], as: UTF8.self)
                try connection.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [.text(conversation)])
                count += try connection.execute(
                    "DELETE FROM pushseal_keys WHERE conversation = $1 AND not_after IS NOT NULL AND not_after < $2 RETURNING epoch",
                    [.text(conversation), .int64(cutoff)]
                ).count
                try Self.markRemovedEpochRecord(conversation, connection, recordKey: recordKey)
            }
            if count > 0 { try Self.notify("", connection) }
            return count
        }
    }

    /// Seals every key and every epoch record again under the master key of `newSource`, and
    /// replaces the verifier, in one transaction: all or nothing (a row or record that does not
    /// verify under the current key aborts it). The verifier is updated first, so every other
    /// node's write waits for the rotation and then fails `KeyStoreError.locked(_:)` instead of
    /// writing under the old key; reads by such nodes stop at the first row sealed under the new
    /// key. This instance fails the same way afterwards: open the directory again with
    /// `newSource`, then destroy the old master key. A purge is durable on PostgreSQL only once
    /// the old key is gone and the server's copies of the old rows are (Docs/KEY-STORE.md §9).
    @discardableResult
    public func rotateMasterKey(to newSource: MasterKeySource) throws(KeyStoreError) -> KeyStore.MasterKeyRotation {
        let newKey = try newSource.load(mayCreate: true)
        if newKey == masterKey { throw .invalidArgument("the new master key is the current one") }
        let (oldKey, oldRecordKey) = (masterKey, epochRecordKey)
        let newRecordKey = ItemSealing.epochRecordKey(masterKey: newKey)
        let newVerifier = ItemSealing.makeVerifier(masterKey: newKey)
        let resealed = try withRetries { connection, retrying throws(KeyStoreError) -> (Int, Int) in
            try Self.transaction(connection) { () throws(KeyStoreError) -> (Int, Int) in
                try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int64(PostgreSQLSchema.migrationLock)])
                // The verifier first (row-locked until commit): every other write waits, then stops.
                let current = try connection.execute("SELECT value FROM pushseal_meta WHERE name = 'verifier' FOR UPDATE")
                guard current.count == 1, let found = current.bytes(0, 0) else {
                    throw .invalidStore("the key directory at \(uri) has no master-key verifier")
                }
                let count = try connection.execute("SELECT count(*)::int8 FROM pushseal_keys")
                // A retry after a lost COMMIT reply: done already when the verifier is the new key's.
                if retrying, ItemSealing.verify(found, masterKey: newKey) { return (Int(count.int64(0, 0) ?? 0), 0) }
                if found != verifier, !ItemSealing.verify(found, masterKey: oldKey) {
                    throw .locked("the key directory at \(uri) is sealed under another master key (it was rotated): open it with the new master key")
                }
                try connection.execute("UPDATE pushseal_meta SET value = $1 WHERE name = 'verifier'", [.bytes(newVerifier)])
                let rows = try connection.execute("SELECT \(Row.columns) FROM pushseal_keys ORDER BY kid")
                for index in 0..<rows.count {
                    let row = try Row(rows, index)
                    let stored = try KeyStore.unseal(row, masterKey: oldKey)
                    try connection.execute(
                        "UPDATE pushseal_keys SET sealed = $2 WHERE kid = $1",
                        [.bytes(row.kid), .bytes(ItemSealing.seal(stored.key, binding: row.binding, masterKey: newKey))])
                }
                let records = try connection.execute("SELECT \(EpochRecord.columns) FROM pushseal_epochs ORDER BY conversation COLLATE \"C\"")
                for index in 0..<records.count {
                    let record = EpochRecord(
                        conversation: records.bytes(index, 0) ?? [], epoch: records.int64(index, 1) ?? -1, kid: records.bytes(index, 2) ?? [],
                        removed: records.int64(index, 3) != 0, tag: records.bytes(index, 4) ?? [])
                    guard record.isAuthentic(recordKey: oldRecordKey) else { throw .corruptedItem(record.keyID) }
                    try Self.writeEpochRecord(
                        EpochRecord(conversation: record.conversation, epoch: record.epoch, kid: record.kid, removed: record.removed,
                                    recordKey: newRecordKey),
                        connection)
                }
                let identities = try Self.resealIdentities(connection, from: oldKey, to: newKey, oldRecordKey: oldRecordKey, newRecordKey: newRecordKey)
                try Self.notify("", connection)
                return (rows.count, identities)
            }
        }
        return KeyStore.MasterKeyRotation(resealedKeys: resealed.0, resealedIdentities: resealed.1, clearedDeliveries: 0)
    }

    // MARK: - Transactions and retries

    /// A read-only transaction (retried on a lost connection).
    func read<R>(_ body: (PostgreSQLConnection) throws(KeyStoreError) -> R) throws(KeyStoreError) -> R {
        try withRetries { connection, _ throws(KeyStoreError) in
            try Self.transaction(connection, readOnly: true) { () throws(KeyStoreError) in try body(connection) }
        }
    }

    /// Inside a write transaction, before anything is written: the directory's verifier must
    /// still be the one this instance's master key verified, read `FOR SHARE` so that a
    /// master-key rotation (which updates it first) and this write are serialized. Otherwise
    /// `KeyStoreError.locked(_:)`: the master key was rotated away and this node must reopen.
    private func requireMasterKey(_ connection: PostgreSQLConnection) throws(KeyStoreError) {
        let rows = try connection.execute("SELECT value FROM pushseal_meta WHERE name = 'verifier' FOR SHARE")
        guard rows.count == 1, let found = rows.bytes(0, 0) else { throw .invalidStore("the key directory at \(uri) has no master-key verifier") }
        if found != verifier, !ItemSealing.verify(found, masterKey: masterKey) {
            throw .locked("the key directory at \(uri) is sealed under another master key (it was rotated): open it with the new master key")
        }
    }

    /// A write transaction holding `conversation`'s advisory lock (when given) and notifying it at
    /// commit. `body` gets whether an earlier attempt was cut off (its commit may have happened).
    func write<R>(
        conversation: String?, _ body: (PostgreSQLConnection, Bool) throws(KeyStoreError) -> R
    ) throws(KeyStoreError) -> R {
        try withRetries { connection, retrying throws(KeyStoreError) in
            try Self.transaction(connection) { () throws(KeyStoreError) in
                if let conversation {
                    try connection.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [.text(conversation)])
                    try Self.notify(conversation, connection)
                }
                try self.requireMasterKey(connection)
                return try body(connection, retrying)
            }
        }
    }

    /// Runs `body` on a pooled connection; on a lost connection or a serialization failure or
    /// deadlock, drops the connection and tries again with exponential backoff (50 ms doubling
    /// to 1 s) until ``Options/retrySeconds`` have passed.
    private func withRetries<R>(_ body: (PostgreSQLConnection, Bool) throws(KeyStoreError) -> R) throws(KeyStoreError) -> R {
        let deadline = Self.monotonicSeconds() + options.retrySeconds
        var delay = 0.05
        var retrying = false
        while true {
            var connection: PostgreSQLConnection?
            do throws(KeyStoreError) {
                let current = try takeConnection()
                connection = current
                let result = try body(current, retrying)
                giveBack(current)
                return result
            } catch {
                let transient: Bool
                switch error {
                case let .serverUnavailable(why): transient = !Self.isPermanentConnectFailure(why)
                case let .server(state, _): transient = state == "40001" || state == "40P01" || state.hasPrefix("08") || state == "57P01"
                default: transient = false
                }
                if let connection, connection.isOpen, !transient { giveBack(connection) }
                guard transient, Self.monotonicSeconds() + delay < deadline else {
                    if transient, case .server = error { throw error }
                    if transient { throw .serverUnavailable("\(Self.reason(error)) (gave up after \(options.retrySeconds) s of retries)") }
                    throw error
                }
                // A lost connection may have lost the reply to a COMMIT that happened.
                if case .serverUnavailable = error { retrying = true }
                Self.sleep(seconds: delay)
                delay = min(delay * 2, 1)
            }
        }
    }

    private func takeConnection() throws(KeyStoreError) -> PostgreSQLConnection {
        if let pooled = lock.withLock({ idle.popLast() }), pooled.isOpen { return pooled }
        return try Self.connect(uri, options)
    }

    private func giveBack(_ connection: PostgreSQLConnection) {
        guard connection.isOpen else { return }
        lock.withLock { if idle.count < Self.maximumIdleConnections { idle.append(connection) } }
    }

    static func connect(_ uri: ConnectionURI, _ options: Options) throws(KeyStoreError) -> PostgreSQLConnection {
        let connection = try PostgreSQLConnection(uri, connectTimeoutSeconds: options.connectTimeoutSeconds)
        if let timeout = options.statementTimeoutMilliseconds {
            try connection.execute("SELECT set_config('statement_timeout', $1, false)", [.text(String(timeout))])
        }
        return connection
    }

    /// BEGIN, `body`, COMMIT; ROLLBACK when `body` throws on a connection still open.
    static func transaction<R>(
        _ connection: PostgreSQLConnection, readOnly: Bool = false, _ body: () throws(KeyStoreError) -> R
    ) throws(KeyStoreError) -> R {
        try connection.execute(readOnly ? "BEGIN READ ONLY" : "BEGIN")
        do throws(KeyStoreError) {
            let result = try body()
            try connection.execute("COMMIT")
            return result
        } catch {
            if connection.isOpen { _ = try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    /// Authentication and URI errors are not retried: waiting does not fix them.
    private static func isPermanentConnectFailure(_ why: String) -> Bool {
        why.contains("authentication") || why.contains("password") || why.contains("invalid") || why.contains("does not exist")
            || why.contains("missing \"=\"") || why.contains("certificate") || why.contains("SSL")
    }

    private static func reason(_ error: KeyStoreError) -> String {
        if case let .serverUnavailable(why) = error { return why }
        return error.description
    }

    private static func monotonicSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static func sleep(seconds: Double) {
        usleep(useconds_t(seconds * 1_000_000))
    }

    // MARK: - Rows

    /// After a cut-off attempt: the row this very key was written as, when that commit happened.
    private func ownEarlierWrite(_ key: ConversationKey, conversation: String, _ connection: PostgreSQLConnection) throws(KeyStoreError) -> StoredKey? {
        let rows = try connection.execute("SELECT \(Row.columns) FROM pushseal_keys WHERE kid = $1", [.bytes(key.id.bytes)])
        guard rows.count == 1 else { return nil }
        let stored = try unseal(try Row(rows, 0))
        guard stored.item.conversation.utf8.elementsEqual(conversation.utf8) else { throw .duplicateItem }
        return stored
    }

    /// The highest epoch of the conversation's rows and its epoch record (so an epoch removed
    /// through the API is never given out again) + 1, or 1.
    private static func nextEpoch(_ conversation: String, _ connection: PostgreSQLConnection, recordKey: SecretKey) throws(KeyStoreError) -> Int64 {
        let rows = try connection.execute("SELECT max(epoch) FROM pushseal_keys WHERE conversation = $1", [.text(conversation)])
        let recorded = try epochRecord(conversation, connection, recordKey: recordKey)?.epoch
        let highest = [rows.int64(0, 0), recorded].compactMap { $0 }.max()
        if highest == Int64.max { throw .invalidArgument("conversation \(conversation) is at the last epoch") }
        return (highest ?? 0) + 1
    }

    /// Every earlier epoch still live at `retireAt` (no not-after time, or a later one: a key
    /// with a lifetime too) gets `retireAt`, i.e. `min(not-after, retireAt)`, each row unsealed (a
    /// tampered one rolls the rotation back as `KeyStoreError.corruptedItem(_:)`) and sealed again.
    private func retire(conversation: String, at retireAt: Int64, _ connection: PostgreSQLConnection) throws(KeyStoreError) {
        let rows = try connection.execute(
            "SELECT \(Row.columns) FROM pushseal_keys WHERE conversation = $1 AND (not_after IS NULL OR not_after > $2) FOR UPDATE",
            [.text(conversation), .int64(retireAt)])
        for index in 0..<rows.count {
            var row = try Row(rows, index)
            let stored = try unseal(row)
            row.notAfter = retireAt
            try connection.execute(
                "UPDATE pushseal_keys SET not_after = $2, sealed = $3 WHERE kid = $1",
                [.bytes(row.kid), .int64(retireAt), .bytes(ItemSealing.seal(stored.key, binding: row.binding, masterKey: masterKey))])
        }
    }

    private static func insert(_ item: KeyItem, sealed: [UInt8], _ connection: PostgreSQLConnection) throws(KeyStoreError) {
        do throws(KeyStoreError) {
            try connection.execute(
                "INSERT INTO pushseal_keys (kid, conversation, epoch, label, created_at, not_after, sealed) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                [
                    .bytes(item.keyID.bytes), .text(item.conversation), .int64(item.epoch), item.label.map { .text($0) } ?? .nullText,
                    .int64(item.createdAt), item.notAfter.map { .int64($0) } ?? .nullInt64, .bytes(sealed),
                ])
        } catch {
            if case .server("23505", _) = error { throw .duplicateItem }
            if case .server("22021", _) = error { throw .invalidArgument("the conversation id or label is not valid text for the server (NUL byte?)") }
            throw error
        }
    }

    private static func notify(_ conversation: String, _ connection: PostgreSQLConnection) throws(KeyStoreError) {
        try connection.execute("SELECT pg_notify($1, $2)", [.text(notificationChannel), .text(conversation)])
    }

    private func unseal(_ row: Row) throws(KeyStoreError) -> StoredKey {
        do throws(KeyStoreError) {
            return try KeyStore.unseal(row, masterKey: masterKey)
        } catch {
            throw rotatedAway(error)
        }
    }

    /// `error` — or, when it is `corruptedItem` because the directory's master key was rotated
    /// away from this instance's, `KeyStoreError.locked(_:)` saying so.
    private func rotatedAway(_ error: KeyStoreError) -> KeyStoreError {
        guard case .corruptedItem = error else { return error }
        let found = try? read { connection throws(KeyStoreError) in
            try connection.execute("SELECT value FROM pushseal_meta WHERE name = 'verifier'").bytes(0, 0)
        }
        guard let found = found ?? nil, found != verifier, !ItemSealing.verify(found, masterKey: masterKey) else { return error }
        return .locked("the key directory at \(uri) is sealed under another master key (it was rotated): open it with the new master key")
    }
}

/// A `pushseal_keys` row: the SQLite store's row type, read from a binary result.
typealias Row = KeyStore.Row

extension KeyStore.Row {
    init(_ rows: PostgreSQLConnection.Rows, _ index: Int) throws(KeyStoreError) {
        guard let kid = rows.bytes(index, 0), let conversation = rows.bytes(index, 1), let epoch = rows.int64(index, 2),
              let createdAt = rows.int64(index, 4), let sealed = rows.bytes(index, 6)
        else { throw .invalidStore("a pushseal_keys row has a NULL or malformed column") }
        let notAfter = rows.int64(index, 5)
        guard notAfter != nil || rows.bytes(index, 5) == nil else { throw .invalidStore("a pushseal_keys row has a malformed not_after") }
        self.init(kid: kid, conversation: conversation, epoch: epoch, label: rows.bytes(index, 3), createdAt: createdAt, notAfter: notAfter, sealed: sealed)
    }
}
