import PushSealCore
import PushSealKeyDirectory

/// The key directory's tables on PostgreSQL, their version and migrations (Docs/KEY-STORE.md).
///
/// `pushseal_schema_version` holds one row, the schema version. Creating and migrating run in one
/// transaction that first takes a transaction-scoped advisory lock, so any number of nodes
/// starting at once create or migrate the schema exactly once.
enum PostgreSQLSchema {
    /// The newest schema version this code reads and writes.
    static let currentVersion: Int64 = 3
    /// The advisory lock key taken while creating or migrating ("PSKS").
    static let migrationLock: Int64 = 0x5053_4B53

    /// `steps[n]` takes the schema from version n to n + 1 (version 0: no tables); each statement
    /// runs on its own, all inside the migrating transaction.
    static let steps: [[String]] = [
        // 0 -> 1
        [
            """
            CREATE TABLE pushseal_schema_version (
                singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
                version   integer NOT NULL)
            """,
            "CREATE TABLE pushseal_meta (name text PRIMARY KEY, value bytea NOT NULL)",
            """
            CREATE TABLE pushseal_keys (
                kid          bytea PRIMARY KEY CHECK (length(kid) = 16),
                conversation text NOT NULL,
                epoch        bigint NOT NULL CHECK (epoch >= 0),
                label        text,
                created_at   bigint NOT NULL,
                not_after    bigint,
                sealed       bytea NOT NULL,
                UNIQUE (conversation, epoch))
            """,
            "CREATE INDEX pushseal_keys_retired ON pushseal_keys (not_after) WHERE not_after IS NOT NULL",
            "INSERT INTO pushseal_schema_version (version) VALUES (0)",
        ],
        // 1 -> 2: the per-conversation epoch record (Docs/KEY-STORE.md §3.5); its rows are
        // written by `PostgreSQLKeyDirectory.createEpochRecords`, which needs the master key.
        [
            """
            CREATE TABLE pushseal_epochs (
                conversation text PRIMARY KEY,
                epoch        bigint NOT NULL,
                kid          bytea NOT NULL,
                removed      bigint NOT NULL,
                tag          bytea NOT NULL)
            """,
        ],
        // 2 -> 3: identities (Docs/KEY-STORE.md §3.6, §3.7): the provider key pairs (their
        // current one recorded in pushseal_meta, 'provider_key', written with the first key pair)
        // and the device registrations, each row sealed under the master key like SQLite's
        // (`seq`, like SQLite's rowid, only orders rows created in the same second).
        [
            """
            CREATE TABLE pushseal_identities (
                kind       text NOT NULL CHECK (kind IN ('provider')),
                id         bytea NOT NULL CHECK (length(id) = 16),
                public_key bytea NOT NULL CHECK (length(public_key) = 32),
                created_at bigint NOT NULL,
                sealed     bytea NOT NULL,
                seq        bigint GENERATED ALWAYS AS IDENTITY,
                PRIMARY KEY (kind, id))
            """,
            """
            CREATE TABLE pushseal_devices (
                id         bytea PRIMARY KEY CHECK (length(id) = 16),
                public_key bytea NOT NULL CHECK (length(public_key) = 32),
                created_at bigint NOT NULL,
                revoked_at bigint,
                sealed     bytea NOT NULL,
                seq        bigint GENERATED ALWAYS AS IDENTITY)
            """,
        ],
    ]

    /// What the database holds, read inside the migrating transaction.
    struct State {
        /// 0 when the tables do not exist.
        var version: Int64
        var verifier: [UInt8]?
    }

    static func read(_ connection: PostgreSQLConnection) throws(KeyDirectoryError) -> State {
        let exists = try connection.execute("SELECT CASE WHEN to_regclass('pushseal_schema_version') IS NULL THEN 0::int8 ELSE 1::int8 END")
        guard exists.int64(0, 0) == 1 else { return State(version: 0, verifier: nil) }
        let version = try connection.execute("SELECT version::int8 FROM pushseal_schema_version")
        guard version.count == 1, let number = version.int64(0, 0) else {
            throw .invalidStore("pushseal_schema_version does not hold exactly one version")
        }
        let verifier = try connection.execute("SELECT value FROM pushseal_meta WHERE name = 'verifier'")
        return State(version: number, verifier: verifier.count == 1 ? verifier.bytes(0, 0) : nil)
    }

    /// Brings the schema from `state.version` to ``currentVersion`` (the epoch records of version
    /// 2 tagged under `masterKey`); stores `verifier` when the tables are created. Inside the transaction holding ``migrationLock``.
    static func migrate(_ connection: PostgreSQLConnection, from state: State, verifier: [UInt8]?, masterKey: MasterKey) throws(KeyDirectoryError) {
        var version = state.version
        while version < currentVersion {
            for statement in steps[Int(version)] { try connection.execute(statement) }
            if version == 1 { try PostgreSQLKeyDirectory.createEpochRecords(connection, masterKey: masterKey) }
            version += 1
        }
        if state.version == 0 {
            guard let verifier else { throw .invalidStore("cannot initialize a key directory without a master key") }
            try connection.execute("INSERT INTO pushseal_meta (name, value) VALUES ('verifier', $1)", [.bytes(verifier)])
        }
        try connection.execute("UPDATE pushseal_schema_version SET version = $1::int8::integer", [.int64(currentVersion)])
    }
}
