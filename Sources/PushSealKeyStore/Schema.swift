import PushSealCore
import PushSealKeyDirectory

/// The store's file format: identification, version, migrations.
///
/// The format version lives in the SQLite header (`PRAGMA user_version`), so it changes
/// atomically with the schema inside the migrating transaction, and the file type in
/// `PRAGMA application_id`. Docs/KEY-STORE.md §2 describes the tables.
enum Schema {
    /// `PRAGMA application_id`: "PSKS" (PushSeal key store).
    static let applicationID: Int64 = 0x5053_4B53
    /// The newest format this code reads and writes.
    static let currentVersion: Int64 = 9

    /// The SQL of each migration step: `steps[n]` takes a file from version n to n + 1. Version 0
    /// is an empty (never initialized) database. Version 2 changed no table, only how keys are
    /// sealed (every column bound into the associated data, Docs/KEY-STORE.md §3): its step
    /// reseals the rows (``resealVersion1Items(_:masterKey:)``). Version 3 adds the
    /// per-conversation epoch record (Docs/KEY-STORE.md §3.5), filled from the newest rows; version 4
    /// the identities of key bundles (SPEC §16.1); version 5 the device's per-conversation bundle
    /// records (high-water epoch, its since time, purge tombstone; SPEC §16.5 step 9), filled from
    /// the newest rows of a device store, and on a key directory the epochs whose K went out in
    /// format-1 bundles (`shared_epochs`, refused for per-device sealing;
    /// ``DeviceKeyStore/createBundleRecords(_:masterKey:)``); version 6 the provider-key record (a `meta`
    /// row naming the current provider key pair, authenticated; no table changes;
    /// ``DeviceKeyStore/createProviderKeyRecord(_:masterKey:)``); version 7 the per-conversation
    /// high-water marks (`epoch_marks`, ``DeviceKeyStore/createEpochMarks(_:masterKey:)``); version 8
    /// the key directory's device registrations (`devices`, new and empty); version 9 moves the
    /// duplicate log out of the database into its own file (``DeviceKeyStore/moveDeliveriesToLog(_:directory:masterKey:)``
    /// copies the `deliveries` rows, then drops the table). Every step runs inside the
    /// migrating `BEGIN IMMEDIATE` transaction together with the `user_version` update.
    static let steps: [String] = [
        // 0 -> 1
        """
        CREATE TABLE meta (
            name  TEXT PRIMARY KEY NOT NULL,
            value BLOB NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE keys (
            kid          BLOB PRIMARY KEY NOT NULL CHECK (length(kid) = 16),
            conversation TEXT NOT NULL,
            epoch        INTEGER NOT NULL CHECK (epoch >= 0),
            label        TEXT,
            created_at   INTEGER NOT NULL,
            not_after    INTEGER,
            sealed       BLOB NOT NULL,
            UNIQUE (conversation, epoch)
        ) WITHOUT ROWID;
        CREATE TABLE deliveries (
            tag     BLOB PRIMARY KEY NOT NULL CHECK (length(tag) = 32),
            seen_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX deliveries_by_time ON deliveries (seen_at);
        """,
        // 1 -> 2: no schema change (resealVersion1Items)
        "",
        // 2 -> 3: the per-conversation epoch record (DeviceKeyStore.createEpochRecords)
        """
        CREATE TABLE epochs (
            conversation TEXT PRIMARY KEY NOT NULL,
            epoch        INTEGER NOT NULL,
            kid          BLOB NOT NULL CHECK (length(kid) = 16),
            removed      INTEGER NOT NULL CHECK (removed IN (0, 1)),
            tag          BLOB NOT NULL CHECK (length(tag) = 32)
        ) WITHOUT ROWID;
        ALTER TABLE deliveries ADD COLUMN envelope BLOB;
        """,
        // 3 -> 4: identities for key bundles (Docs/KEY-STORE.md §2, SPEC §16.1): the device key,
        // the provider's own key pairs and the pinned provider public keys. Self-contained: a
        // new table only, nothing else changes.
        """
        CREATE TABLE identities (
            kind       TEXT NOT NULL CHECK (kind IN ('device', 'provider', 'pinned')),
            id         BLOB NOT NULL CHECK (length(id) = 16),
            public_key BLOB NOT NULL CHECK (length(public_key) = 32),
            created_at INTEGER NOT NULL,
            sealed     BLOB NOT NULL,
            PRIMARY KEY (kind, id)
        );
        CREATE UNIQUE INDEX one_device_key ON identities (kind) WHERE kind = 'device';
        """,
        // 4 -> 5: the device's per-conversation bundle records (DeviceKeyStore.createBundleRecords)
        """
        CREATE TABLE bundle_records (
            conversation     TEXT PRIMARY KEY NOT NULL,
            high_water       INTEGER NOT NULL CHECK (high_water >= 0),
            high_water_since INTEGER NOT NULL CHECK (high_water_since >= 0),
            purged_through   INTEGER NOT NULL CHECK (purged_through >= 0),
            tag              BLOB NOT NULL CHECK (length(tag) = 32)
        ) WITHOUT ROWID;
        CREATE TABLE shared_epochs (
            conversation TEXT NOT NULL,
            epoch        INTEGER NOT NULL,
            PRIMARY KEY (conversation, epoch)
        ) WITHOUT ROWID;
        """,
        // 5 -> 6: no schema change (DeviceKeyStore.createProviderKeyRecord writes a meta row)
        "",
        // 6 -> 7: the per-conversation high-water marks (DeviceKeyStore.createEpochMarks)
        """
        CREATE TABLE epoch_marks (
            conversation TEXT PRIMARY KEY NOT NULL,
            epoch        INTEGER NOT NULL CHECK (epoch >= 0),
            tag          BLOB NOT NULL CHECK (length(tag) = 32)
        ) WITHOUT ROWID;
        """,
        // 7 -> 8: the key directory's device registrations (DeviceKeyStore+DeviceRegistrations,
        // Docs/KEY-STORE.md §3.7)
        """
        CREATE TABLE devices (
            id         BLOB PRIMARY KEY NOT NULL CHECK (length(id) = 16),
            public_key BLOB NOT NULL CHECK (length(public_key) = 32),
            created_at INTEGER NOT NULL,
            revoked_at INTEGER,
            sealed     BLOB NOT NULL
        ) WITHOUT ROWID;
        """,
        // 8 -> 9: the duplicate log moves to its own file (DeviceKeyStore.moveDeliveriesToLog
        // copies the rows, then drops the table)
        "",
    ]

    /// What the file header and schema say, read inside a transaction.
    struct Header {
        var applicationID: Int64
        var version: Int64
        /// Number of objects in sqlite_master (0 for a fresh, empty database). Read only when
        /// `applicationID` and `version` are both 0; otherwise 0 (it is not needed then).
        var objectCount: Int64
        /// The master-key verifier, when the meta table has one.
        var verifier: [UInt8]?

        /// An empty database nobody initialized yet (a 0-byte file, or one created and never written).
        var isUninitialized: Bool { applicationID == 0 && version == 0 && objectCount == 0 }
        /// Whether the file says it is a PushSeal key store.
        var isKeyStore: Bool { applicationID == Schema.applicationID }
    }

    /// Reads the header. Must run inside a transaction on `connection`.
    static func readHeader(_ connection: SQLiteConnection) throws(KeyDirectoryError) -> Header {
        // Plain PRAGMA statements: compiling the pragma_* table-valued functions inside a SELECT
        // cost about five times as much (a cold lookup opens a connection and reads this header).
        let applicationID = try connection.integerPragma("application_id")
        let version = try connection.integerPragma("user_version")
        var header = Header(applicationID: applicationID, version: version, objectCount: 0, verifier: nil)
        if applicationID == 0, version == 0 {
            // Only a file that says nothing about itself needs the count (empty vs foreign).
            header.objectCount = try connection.withStatement("SELECT count(*) FROM sqlite_master") { statement throws(KeyDirectoryError) in
                _ = try statement.step()
                return statement.int64(0)
            }
        }
        if header.isKeyStore, header.version >= 1 {
            header.verifier = try readVerifier(connection)
        }
        return header
    }

    /// The verifier row, nil when absent.
    static func readVerifier(_ connection: SQLiteConnection) throws(KeyDirectoryError) -> [UInt8]? {
        try connection.withStatement("SELECT value FROM meta WHERE name = 'verifier'") { statement throws(KeyDirectoryError) in
            try statement.step() ? statement.bytes(0) : nil
        }
    }

    /// Checks that `header` describes a key store this code can use as it is (or migrate).
    /// `path` is for messages.
    static func validate(_ header: Header, path: String) throws(KeyDirectoryError) {
        if header.isUninitialized { return }
        guard header.isKeyStore else {
            throw .invalidStore("\(path) is an SQLite database of another application (application_id \(header.applicationID))")
        }
        guard header.version <= currentVersion else {
            throw .unsupportedFileVersion(found: header.version, supported: currentVersion)
        }
        guard header.version >= 1 else {
            throw .invalidStore("\(path) has format version \(header.version)")
        }
        guard let verifier = header.verifier else {
            throw .invalidStore("\(path) has no master-key verifier")
        }
        guard ItemSealing.isWellFormedVerifier(verifier) else {
            throw .invalidStore("\(path) has a malformed master-key verifier")
        }
    }

    /// Brings a store from `header.version` to ``currentVersion`` (an empty database: creates
    /// everything, with `verifier`; the duplicate log file in `directory` too). Must run inside a `BEGIN IMMEDIATE` transaction, after the
    /// header was re-read in that same transaction.
    static func migrate(
        _ connection: SQLiteConnection, from header: Header, verifier: [UInt8]?, masterKey: MasterKey, directory: String
    ) throws(KeyDirectoryError) {
        var version = header.version
        while version < currentVersion {
            if !steps[Int(version)].isEmpty { try connection.execute(steps[Int(version)]) }
            if version == 1 { try resealVersion1Items(connection, masterKey: masterKey) }
            if version == 2 { try DeviceKeyStore.createEpochRecords(connection, masterKey: masterKey) }
            if version == 4 { try DeviceKeyStore.createBundleRecords(connection, masterKey: masterKey) }
            if version == 5 { try DeviceKeyStore.createProviderKeyRecord(connection, masterKey: masterKey) }
            if version == 6 { try DeviceKeyStore.createEpochMarks(connection, masterKey: masterKey) }
            if version == 8 { try DeviceKeyStore.moveDeliveriesToLog(connection, directory: directory, masterKey: masterKey) }
            version += 1
        }
        if header.isUninitialized {
            guard let verifier else { throw .invalidStore("cannot initialize a store without a master key") }
            try connection.withStatement("INSERT INTO meta (name, value) VALUES ('verifier', ?1)") { statement throws(KeyDirectoryError) in
                try statement.bind(1, blob: verifier)
                _ = try statement.step()
            }
            try connection.execute("PRAGMA application_id = \(applicationID)")
        }
        try connection.execute("PRAGMA user_version = \(currentVersion)")
    }

    /// Version 1 -> 2: every row whose key unseals under format 1 (kid, epoch and conversation
    /// bound) is sealed again under format 2 (every column bound), with its columns as they are.
    /// A row that does not unseal is left as it is: format 2 refuses its format-1 blob, so it
    /// stays `KeyDirectoryError.corruptedItem(_:)`.
    static func resealVersion1Items(_ connection: SQLiteConnection, masterKey: MasterKey) throws(KeyDirectoryError) {
        let rows = try connection.withStatement("SELECT \(DeviceKeyStore.Row.columns) FROM keys") { statement throws(KeyDirectoryError) in
            var rows: [DeviceKeyStore.Row] = []
            while try statement.step() { rows.append(DeviceKeyStore.Row(statement)) }
            return rows
        }
        try connection.withStatement("UPDATE keys SET sealed = ?2 WHERE kid = ?1") { statement throws(KeyDirectoryError) in
            for row in rows {
                guard let key = ItemSealing.unsealVersion1(row.sealed, binding: row.binding, masterKey: masterKey) else { continue }
                try statement.bind(1, blob: row.kid)
                try statement.bind(2, blob: ItemSealing.seal(key, binding: row.binding, masterKey: masterKey))
                _ = try statement.step()
                statement.reset()
            }
        }
    }
}
