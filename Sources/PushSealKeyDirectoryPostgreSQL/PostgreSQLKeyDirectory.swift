public import PushSealCore
public import PushSealKeyDirectory
internal import PushSealPlatform

/// The provider's key directory on a PostgreSQL server, shared by every backend node: the same
/// model and guarantees as `SQLiteKeyDirectory` (keys by (conversation, epoch), indexed by
/// key id, each sealed under the master key with its whole row bound in, by the same
/// `ItemSealing`), so a row copied, swapped or edited is `KeyDirectoryError.corruptedItem(_:)`.
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
public final class PostgreSQLKeyDirectory: KeyDirectory, KeyDirectoryStorage, @unchecked Sendable {
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
        /// fails with `KeyDirectoryError.serverUnavailable(_:)`: 15 seconds.
        public var retrySeconds: Double
        /// `statement_timeout` for this directory's sessions in milliseconds, nil for the server's
        /// (or the URI's) setting. A statement over it is `KeyDirectoryError.server(sqlState:message:)`
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

    let masterKey: MasterKey
    /// The master-key verifier this instance checked its key against; every write re-reads the
    /// directory's (``requireMasterKey(_:)``), so a node left on a rotated-away key stops.
    let verifier: [UInt8]
    /// Tags the epoch records and the provider-key record.
    let epochRecordKey: SecretKey
    let clock: SecondsClock
    private let lock = Lock()
    private var idle: [PostgreSQLConnection] = []
    private static let maximumIdleConnections = 4

    /// Connects to the server at `uri` (`postgresql://…` or `postgres://…`, every libpq parameter
    /// passed through, TLS ones included), checks the schema version (migrating an older one) and
    /// the master key against the directory's verifier. With `create`, creates the schema (and,
    /// through the source, the master key) when the database has none; without it, a database
    /// without the tables is `KeyDirectoryError.storeNotFound(_:)`. A server that cannot be reached
    /// is `KeyDirectoryError.serverUnavailable(_:)` at once (no retry at start, no fallback).
    public init(
        uri text: String, masterKey source: MasterKeySource, create: Bool = false, clock: @escaping SecondsClock = systemClock,
        options: Options = Options()
    ) throws(KeyDirectoryError) {
        let uri = try ConnectionURI(text)
        self.uri = uri
        self.options = options
        self.clock = clock
        let connection = try Self.connect(uri, options)
        let (key, verifier, created) = try Self.transaction(connection) { () throws(KeyDirectoryError) -> (MasterKey, [UInt8], Bool) in
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
            guard ItemSealing.verify(verifier, masterKey: key) else { throw KeyDirectoryLimits.wrongKey(source) }
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
    /// conversation's lock). `KeyDirectoryError.duplicateItem` when the key id or the
    /// (conversation, epoch) exists.
    @discardableResult
    public func add(
        _ key: ConversationKey, conversation: String, epoch: Int64? = nil, label: String? = nil, notAfter: Int64? = nil
    ) throws(KeyDirectoryError) -> KeyItem {
        try rules.add(key, conversation: conversation, epoch: epoch, label: label, notAfter: notAfter)
    }

    /// Rotates `conversation` (see `KeyDirectory.rotate(conversation:label:key:)`): earlier epochs
    /// are retired now. Serialized with every other node's writes to the conversation by its
    /// advisory lock.
    @discardableResult
    public func rotate(conversation: String, label: String? = nil, key supplied: ConversationKey? = nil) throws(KeyDirectoryError) -> StoredKey {
        try rules.rotate(conversation: conversation, label: label, key: supplied)
    }

    /// The conversation's current key: its newest epoch, unsealed and checked, while it is live;
    /// `KeyDirectoryError.itemNotFound` once it is retired or removed, or when the conversation has
    /// no keys. Never an older epoch (SPEC §3.5: a member removed by the rotation may hold it):
    /// the newest epoch is the authenticated epoch record's, so a deleted or rolled-back newest
    /// row is `KeyDirectoryError.corruptedItem`, a deleted record `KeyDirectoryError.epochRecordMissing`.
    public func currentKey(conversation: String) throws(KeyDirectoryError) -> StoredKey {
        try rules.currentKey(conversation: conversation)
    }

    /// The key with id `id`, unsealed and checked.
    public func key(for id: KeyID) throws(KeyDirectoryError) -> StoredKey {
        try rules.key(for: id)
    }

    /// Metadata of every item (or one conversation's), by conversation bytes and epoch; each row
    /// authenticated.
    public func items(conversation: String? = nil) throws(KeyDirectoryError) -> [KeyItem] {
        try rules.items(conversation: conversation)
    }

    /// Removes the item with id `keyID` (under its conversation's lock: when it is the newest
    /// epoch, the epoch record is marked removed).
    public func remove(keyID: KeyID) throws(KeyDirectoryError) {
        try rules.remove(keyID: keyID)
    }

    /// Removes every epoch of `conversation`, and its epoch record; returns how many.
    @discardableResult
    public func removeConversation(_ conversation: String) throws(KeyDirectoryError) -> Int {
        try rules.removeConversation(conversation)
    }

    /// Deletes every item whose not-after time has passed; returns how many. Each affected
    /// conversation is locked (in one order, so purges never deadlock each other) before its rows
    /// go, and a removed newest epoch marks its epoch record removed.
    @discardableResult
    public func purgeExpired(gracePeriod: Int64 = KeyDirectoryLimits.defaultGracePeriod) throws(KeyDirectoryError) -> Int {
        try rules.purgeExpired(gracePeriod: gracePeriod)
    }

    /// Seals every key and every epoch record again under the master key of `newSource`, and
    /// replaces the verifier, in one transaction: all or nothing (a row or record that does not
    /// verify under the current key aborts it). The verifier is updated first, so every other
    /// node's write waits for the rotation and then fails `KeyDirectoryError.locked(_:)` instead of
    /// writing under the old key; reads by such nodes stop at the first row sealed under the new
    /// key. This instance fails the same way afterwards: open the directory again with
    /// `newSource`, then destroy the old master key. A purge is durable on PostgreSQL only once
    /// the old key is gone and the server's copies of the old rows are (Docs/KEY-STORE.md §9).
    @discardableResult
    public func rotateMasterKey(to newSource: MasterKeySource) throws(KeyDirectoryError) -> MasterKeyRotation {
        try rules.rotateMasterKey(to: newSource, describing: "the key directory at \(uri)")
    }

    // MARK: - Transactions and retries

    /// The rules of every key directory over this server's tables.
    var rules: KeyDirectoryRules<PostgreSQLKeyDirectory> {
        KeyDirectoryRules(storage: self, masterKey: masterKey, recordKey: epochRecordKey, verifier: verifier, clock: clock)
    }

    /// The rules' read transaction: read-only, retried on a lost connection. A row or record that
    /// does not verify because the directory's master key was rotated away from this instance's is
    /// `KeyDirectoryError.locked(_:)` saying so.
    package func read<R>(_ body: (PostgreSQLKeyDirectoryTransaction) throws(KeyDirectoryError) -> R) throws(KeyDirectoryError) -> R {
        do throws(KeyDirectoryError) {
            return try readConnection { connection throws(KeyDirectoryError) in try body(PostgreSQLKeyDirectoryTransaction(connection, isRetry: false)) }
        } catch {
            throw rotatedAway(error)
        }
    }

    /// The rules' write transaction: `scope`'s advisory locks (a conversation's is notified at
    /// commit), the master-key check, and retries on a lost connection (then the transaction's
    /// `isRetry` is true).
    package func write<R>(
        _ scope: KeyDirectoryWriteScope, _ body: (PostgreSQLKeyDirectoryTransaction) throws(KeyDirectoryError) -> R
    ) throws(KeyDirectoryError) -> R {
        switch scope {
        case let .conversation(conversation):
            return try write(conversation: conversation) { connection, retrying throws(KeyDirectoryError) in
                try body(PostgreSQLKeyDirectoryTransaction(connection, isRetry: retrying))
            }
        case .conversations:
            return try write(conversation: nil) { connection, retrying throws(KeyDirectoryError) in
                try body(PostgreSQLKeyDirectoryTransaction(connection, isRetry: retrying))
            }
        case .identities:
            return try write(conversation: nil) { connection, retrying throws(KeyDirectoryError) in
                try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int64(Self.identityLock)])
                return try body(PostgreSQLKeyDirectoryTransaction(connection, isRetry: retrying))
            }
        case .masterKey:
            return try withRetries { connection, retrying throws(KeyDirectoryError) in
                try Self.transaction(connection) { () throws(KeyDirectoryError) in
                    try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int64(PostgreSQLSchema.migrationLock)])
                    // The verifier first (row-locked until commit): every other write waits, then stops.
                    try connection.execute("SELECT value FROM pushseal_meta WHERE name = 'verifier' FOR UPDATE")
                    return try body(PostgreSQLKeyDirectoryTransaction(connection, isRetry: retrying))
                }
            }
        }
    }

    /// A read-only transaction on a pooled connection (retried on a lost connection).
    private func readConnection<R>(_ body: (PostgreSQLConnection) throws(KeyDirectoryError) -> R) throws(KeyDirectoryError) -> R {
        try withRetries { connection, _ throws(KeyDirectoryError) in
            try Self.transaction(connection, readOnly: true) { () throws(KeyDirectoryError) in try body(connection) }
        }
    }

    /// Inside a write transaction, before anything is written: the directory's verifier must
    /// still be the one this instance's master key verified, read `FOR SHARE` so that a
    /// master-key rotation (which updates it first) and this write are serialized. Otherwise
    /// `KeyDirectoryError.locked(_:)`: the master key was rotated away and this node must reopen.
    private func requireMasterKey(_ connection: PostgreSQLConnection) throws(KeyDirectoryError) {
        let rows = try connection.execute("SELECT value FROM pushseal_meta WHERE name = 'verifier' FOR SHARE")
        guard rows.count == 1, let found = rows.bytes(0, 0) else { throw .invalidStore("the key directory at \(uri) has no master-key verifier") }
        if found != verifier, !ItemSealing.verify(found, masterKey: masterKey) {
            throw .locked("the key directory at \(uri) is sealed under another master key (it was rotated): open it with the new master key")
        }
    }

    /// A write transaction holding `conversation`'s advisory lock (when given) and notifying it at
    /// commit. `body` gets whether an earlier attempt was cut off (its commit may have happened).
    private func write<R>(
        conversation: String?, _ body: (PostgreSQLConnection, Bool) throws(KeyDirectoryError) -> R
    ) throws(KeyDirectoryError) -> R {
        try withRetries { connection, retrying throws(KeyDirectoryError) in
            try Self.transaction(connection) { () throws(KeyDirectoryError) in
                if let conversation {
                    let transaction = PostgreSQLKeyDirectoryTransaction(connection, isRetry: retrying)
                    try transaction.lock(conversation: conversation)
                    try transaction.changed(conversation: conversation)
                }
                try self.requireMasterKey(connection)
                return try body(connection, retrying)
            }
        }
    }

    /// Runs `body` on a pooled connection; on a lost connection or a serialization failure or
    /// deadlock, drops the connection and tries again with exponential backoff (50 ms doubling
    /// to 1 s) until ``Options/retrySeconds`` have passed.
    private func withRetries<R>(_ body: (PostgreSQLConnection, Bool) throws(KeyDirectoryError) -> R) throws(KeyDirectoryError) -> R {
        let deadline = MonotonicClock.seconds() + options.retrySeconds
        var delay = 0.05
        var retrying = false
        while true {
            var connection: PostgreSQLConnection?
            do throws(KeyDirectoryError) {
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
                guard transient, MonotonicClock.seconds() + delay < deadline else {
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

    private func takeConnection() throws(KeyDirectoryError) -> PostgreSQLConnection {
        if let pooled = lock.withLock({ idle.popLast() }), pooled.isOpen { return pooled }
        return try Self.connect(uri, options)
    }

    private func giveBack(_ connection: PostgreSQLConnection) {
        guard connection.isOpen else { return }
        lock.withLock { if idle.count < Self.maximumIdleConnections { idle.append(connection) } }
    }

    static func connect(_ uri: ConnectionURI, _ options: Options) throws(KeyDirectoryError) -> PostgreSQLConnection {
        let connection = try PostgreSQLConnection(uri, connectTimeoutSeconds: options.connectTimeoutSeconds)
        if let timeout = options.statementTimeoutMilliseconds {
            try connection.execute("SELECT set_config('statement_timeout', $1, false)", [.text(String(timeout))])
        }
        return connection
    }

    /// BEGIN, `body`, COMMIT; ROLLBACK when `body` throws on a connection still open.
    static func transaction<R>(
        _ connection: PostgreSQLConnection, readOnly: Bool = false, _ body: () throws(KeyDirectoryError) -> R
    ) throws(KeyDirectoryError) -> R {
        try connection.execute(readOnly ? "BEGIN READ ONLY" : "BEGIN")
        do throws(KeyDirectoryError) {
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

    private static func reason(_ error: KeyDirectoryError) -> String {
        if case let .serverUnavailable(why) = error { return why }
        return error.description
    }


    private static func sleep(seconds: Double) {
        usleep(useconds_t(seconds * 1_000_000))
    }

    // MARK: - Rows

    /// `error` — or, when it is `corruptedItem` because the directory's master key was rotated
    /// away from this instance's, `KeyDirectoryError.locked(_:)` saying so.
    private func rotatedAway(_ error: KeyDirectoryError) -> KeyDirectoryError {
        guard case .corruptedItem = error else { return error }
        let found = try? readConnection { connection throws(KeyDirectoryError) in
            try connection.execute("SELECT value FROM pushseal_meta WHERE name = 'verifier'").bytes(0, 0)
        }
        guard let found = found ?? nil, found != verifier, !ItemSealing.verify(found, masterKey: masterKey) else { return error }
        return .locked("the key directory at \(uri) is sealed under another master key (it was rotated): open it with the new master key")
    }
}

/// A `pushseal_keys` row: the SQLite store's row type, read from a binary result.
typealias Row = KeyDirectoryRow

extension KeyDirectoryRow {
    init(_ rows: PostgreSQLConnection.Rows, _ index: Int) throws(KeyDirectoryError) {
        guard let kid = rows.bytes(index, 0), let conversation = rows.bytes(index, 1), let epoch = rows.int64(index, 2),
              let createdAt = rows.int64(index, 4), let sealed = rows.bytes(index, 6)
        else { throw .invalidStore("a pushseal_keys row has a NULL or malformed column") }
        let notAfter = rows.int64(index, 5)
        guard notAfter != nil || rows.bytes(index, 5) == nil else { throw .invalidStore("a pushseal_keys row has a malformed not_after") }
        self.init(kid: kid, conversation: conversation, epoch: epoch, label: rows.bytes(index, 3), createdAt: createdAt, notAfter: notAfter, sealed: sealed)
    }
}
