import PushSealCore
import PushSealKeyDirectory

/// The key directory's rows in the SQLite file (tables `keys`, `epochs`, `epoch_marks`, `meta`,
/// `identities`, `devices`): the SQL of one transaction on the store's kept connection. The rules
/// are ``KeyDirectoryRules``'s; the transaction itself (and its locks: `BEGIN IMMEDIATE` locks the
/// whole file for a write) is ``DeviceKeyStore``'s session.
package struct SQLiteKeyDirectoryTransaction: KeyDirectoryTransaction {
    let connection: SQLiteConnection
    /// The epoch-record key, for the device's bundle records a purge touches (nil only for a
    /// read that touches none: ``DeviceKeyStore/lookup(_:directory:masterKey:)`` before the key is loaded).
    let recordKey: SecretKey?

    init(_ connection: SQLiteConnection, recordKey: SecretKey?) { (self.connection, self.recordKey) = (connection, recordKey) }

    package var isRetry: Bool { false }
    package var keepsEpochMarks: Bool { true }

    // MARK: Keys

    /// The lookup's statement, built once (it runs on every lookup).
    private static let rowByKid = "SELECT \(KeyDirectoryRow.columns) FROM keys WHERE kid = ?1"

    package func row(kid: [UInt8]) throws(KeyDirectoryError) -> KeyDirectoryRow? {
        try connection.withStatement(Self.rowByKid) { statement throws(KeyDirectoryError) in
            try statement.bind(1, blob: kid)
            return try statement.step() ? KeyDirectoryRow(statement) : nil
        }
    }

    package func rows(conversation: String?) throws(KeyDirectoryError) -> [KeyDirectoryRow] {
        let filter = conversation == nil ? "" : " WHERE conversation = ?1"
        return try connection.withStatement("SELECT \(KeyDirectoryRow.columns) FROM keys\(filter) ORDER BY conversation, epoch") {
            statement throws(KeyDirectoryError) in
            if let conversation { try statement.bind(1, text: conversation) }
            var rows: [KeyDirectoryRow] = []
            while try statement.step() { rows.append(KeyDirectoryRow(statement)) }
            return rows
        }
    }

    package func newestRowAndRecord(conversation: String) throws(KeyDirectoryError) -> (row: KeyDirectoryRow?, record: EpochRecord?) {
        let newest = try connection.withStatement(
            "SELECT \(KeyDirectoryRow.columns) FROM keys WHERE conversation = ?1 ORDER BY epoch DESC LIMIT 1"
        ) { statement throws(KeyDirectoryError) -> KeyDirectoryRow? in
            try statement.bind(1, text: conversation)
            return try statement.step() ? KeyDirectoryRow(statement) : nil
        }
        return (newest, try epochRecord(conversation: conversation))
    }

    package func highestEpoch(conversation: String) throws(KeyDirectoryError) -> Int64? {
        try connection.withStatement("SELECT max(epoch) FROM keys WHERE conversation = ?1") { statement throws(KeyDirectoryError) in
            try statement.bind(1, text: conversation)
            _ = try statement.step()
            return statement.optionalInt64(0)
        }
    }

    package func hasRows(conversation: String, excluding excluded: [UInt8]?) throws(KeyDirectoryError) -> Bool {
        try connection.withStatement("SELECT 1 FROM keys WHERE conversation = ?1 AND kid <> ?2 LIMIT 1") { statement throws(KeyDirectoryError) in
            try statement.bind(1, text: conversation)
            try statement.bind(2, blob: excluded ?? [])
            return try statement.step()
        }
    }

    package func insert(_ row: KeyDirectoryRow) throws(KeyDirectoryError) {
        do {
            try connection.withStatement(
                "INSERT INTO keys (kid, conversation, epoch, label, created_at, not_after, sealed) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
            ) { statement throws(KeyDirectoryError) in
                try statement.bind(1, blob: row.kid)
                try statement.bind(2, textBytes: row.conversation)
                try statement.bind(3, row.epoch)
                if let label = row.label { try statement.bind(4, textBytes: label) } else { try statement.bind(4, text: nil) }
                try statement.bind(5, row.createdAt)
                try statement.bind(6, row.notAfter)
                try statement.bind(7, blob: row.sealed)
                _ = try statement.step()
            }
        } catch let error {
            throw Self.duplicate(error)
        }
    }

    /// A primary-key or unique violation is ``KeyDirectoryError/duplicateItem``.
    static func duplicate(_ error: KeyDirectoryError) -> KeyDirectoryError {
        if case let .sqlite(_, extended, _) = error,
           extended == SQLiteConnection.constraintPrimaryKey || extended == SQLiteConnection.constraintUnique {
            return .duplicateItem
        }
        return error
    }

    package func liveRows(conversation: String, below epoch: Int64, after time: Int64) throws(KeyDirectoryError) -> [KeyDirectoryRow] {
        try connection.withStatement(
            "SELECT \(KeyDirectoryRow.columns) FROM keys WHERE conversation = ?1 AND epoch < ?2 AND (not_after IS NULL OR not_after > ?3)"
        ) { statement throws(KeyDirectoryError) -> [KeyDirectoryRow] in
            try statement.bind(1, text: conversation)
            try statement.bind(2, epoch)
            try statement.bind(3, time)
            var rows: [KeyDirectoryRow] = []
            while try statement.step() { rows.append(KeyDirectoryRow(statement)) }
            return rows
        }
    }

    package func update(_ row: KeyDirectoryRow) throws(KeyDirectoryError) {
        try connection.withStatement("UPDATE keys SET not_after = ?2, sealed = ?3 WHERE kid = ?1") { statement throws(KeyDirectoryError) in
            try statement.bind(1, blob: row.kid)
            try statement.bind(2, row.notAfter)
            try statement.bind(3, blob: row.sealed)
            _ = try statement.step()
        }
    }

    package func updateSealed(_ row: KeyDirectoryRow) throws(KeyDirectoryError) {
        try connection.withStatement("UPDATE keys SET sealed = ?2 WHERE kid = ?1") { statement throws(KeyDirectoryError) in
            try statement.bind(1, blob: row.kid)
            try statement.bind(2, blob: row.sealed)
            _ = try statement.step()
        }
    }

    package func deleteRow(kid: [UInt8], conversation: String) throws(KeyDirectoryError) -> Int {
        try connection.withStatement("DELETE FROM keys WHERE kid = ?1 AND conversation = ?2") { statement throws(KeyDirectoryError) in
            try statement.bind(1, blob: kid)
            try statement.bind(2, text: conversation)
            _ = try statement.step()
        }
        return connection.changes
    }

    package func deleteRows(conversation: String) throws(KeyDirectoryError) -> Int {
        try connection.withStatement("DELETE FROM keys WHERE conversation = ?1") { statement throws(KeyDirectoryError) in
            try statement.bind(1, text: conversation)
            _ = try statement.step()
        }
        return connection.changes
    }

    package func conversations(retiredBefore cutoff: Int64) throws(KeyDirectoryError) -> [String] {
        try connection.withStatement(
            "SELECT DISTINCT conversation FROM keys WHERE not_after IS NOT NULL AND not_after < ?1 ORDER BY conversation"
        ) { statement throws(KeyDirectoryError) -> [String] in
            try statement.bind(1, cutoff)
            var all: [String] = []
            while try statement.step() { all.append(String(decoding: statement.textBytes(0), as: UTF8.self)) }
            return all
        }
    }

    package func deleteRows(conversation: String, retiredBefore cutoff: Int64) throws(KeyDirectoryError) -> Int {
        try connection.withStatement(
            "DELETE FROM keys WHERE conversation = ?1 AND not_after IS NOT NULL AND not_after < ?2"
        ) { statement throws(KeyDirectoryError) in
            try statement.bind(1, text: conversation)
            try statement.bind(2, cutoff)
            _ = try statement.step()
        }
        return connection.changes
    }

    /// The write transaction holds the whole file (`BEGIN IMMEDIATE`).
    package func lock(conversation: String) throws(KeyDirectoryError) {}

    // MARK: Epoch records and high-water marks

    package func epochRecord(conversation: String) throws(KeyDirectoryError) -> EpochRecord? {
        try connection.withStatement("SELECT \(EpochRecord.columns) FROM epochs WHERE conversation = ?1") {
            statement throws(KeyDirectoryError) -> EpochRecord? in
            try statement.bind(1, text: conversation)
            return try statement.step() ? EpochRecord(statement) : nil
        }
    }

    package func epochRecords() throws(KeyDirectoryError) -> [EpochRecord] {
        try connection.withStatement("SELECT \(EpochRecord.columns) FROM epochs") { statement throws(KeyDirectoryError) -> [EpochRecord] in
            var records: [EpochRecord] = []
            while try statement.step() { records.append(EpochRecord(statement)) }
            return records
        }
    }

    package func putEpochRecord(_ record: EpochRecord) throws(KeyDirectoryError) {
        try connection.withStatement("INSERT OR REPLACE INTO epochs (\(EpochRecord.columns)) VALUES (?1, ?2, ?3, ?4, ?5)") {
            statement throws(KeyDirectoryError) in
            try statement.bind(1, textBytes: record.conversation)
            try statement.bind(2, record.epoch)
            try statement.bind(3, blob: record.kid)
            try statement.bind(4, Int64(record.removed ? 1 : 0))
            try statement.bind(5, blob: record.tag)
            _ = try statement.step()
        }
    }

    package func forgetConversation(_ conversation: String) throws(KeyDirectoryError) {
        for table in ["epochs", "epoch_marks"] {
            try connection.withStatement("DELETE FROM \(table) WHERE conversation = ?1") { statement throws(KeyDirectoryError) in
                try statement.bind(1, text: conversation)
                _ = try statement.step()
            }
        }
    }

    package func epochMark(conversation: [UInt8]) throws(KeyDirectoryError) -> (epoch: Int64, tag: [UInt8])? {
        try connection.withStatement("SELECT epoch, tag FROM epoch_marks WHERE conversation = ?1") {
            statement throws(KeyDirectoryError) -> (epoch: Int64, tag: [UInt8])? in
            try statement.bind(1, textBytes: conversation)
            return try statement.step() ? (statement.int64(0), statement.bytes(1)) : nil
        }
    }

    package func epochMarkConversations() throws(KeyDirectoryError) -> [[UInt8]] {
        try connection.withStatement("SELECT conversation FROM epoch_marks") { statement throws(KeyDirectoryError) -> [[UInt8]] in
            var all: [[UInt8]] = []
            while try statement.step() { all.append(statement.textBytes(0)) }
            return all
        }
    }

    package func putEpochMark(conversation: [UInt8], epoch: Int64, tag: [UInt8]) throws(KeyDirectoryError) {
        try connection.withStatement("INSERT OR REPLACE INTO epoch_marks (conversation, epoch, tag) VALUES (?1, ?2, ?3)") {
            statement throws(KeyDirectoryError) in
            try statement.bind(1, textBytes: conversation)
            try statement.bind(2, epoch)
            try statement.bind(3, blob: tag)
            _ = try statement.step()
        }
    }

    // MARK: Meta values

    package func meta(_ name: String) throws(KeyDirectoryError) -> [UInt8]? {
        try connection.withStatement("SELECT value FROM meta WHERE name = ?1") { statement throws(KeyDirectoryError) -> [UInt8]? in
            try statement.bind(1, text: name)
            return try statement.step() ? statement.bytes(0) : nil
        }
    }

    package func setMeta(_ name: String, _ value: [UInt8]?) throws(KeyDirectoryError) {
        guard let value else {
            try connection.withStatement("DELETE FROM meta WHERE name = ?1") { statement throws(KeyDirectoryError) in
                try statement.bind(1, text: name)
                _ = try statement.step()
            }
            return
        }
        try connection.withStatement("INSERT OR REPLACE INTO meta (name, value) VALUES (?1, ?2)") { statement throws(KeyDirectoryError) in
            try statement.bind(1, text: name)
            try statement.bind(2, blob: value)
            _ = try statement.step()
        }
    }

    // MARK: Identities and registered devices

    package func identityRows(_ kind: IdentitySealing.Kind) throws(KeyDirectoryError) -> [SealedIdentityRow] {
        try connection.withStatement(
            "SELECT id, public_key, created_at, sealed FROM identities WHERE kind = ?1 ORDER BY created_at, rowid"
        ) { statement throws(KeyDirectoryError) -> [SealedIdentityRow] in
            try statement.bind(1, text: kind.rawValue)
            var rows: [SealedIdentityRow] = []
            while try statement.step() {
                rows.append((.init(kind: kind, id: statement.bytes(0), publicKey: statement.bytes(1), createdAt: statement.int64(2)), statement.bytes(3)))
            }
            return rows
        }
    }

    package func insertIdentity(_ binding: IdentitySealing.Binding, sealed: [UInt8]) throws(KeyDirectoryError) {
        try connection.withStatement(
            "INSERT OR IGNORE INTO identities (kind, id, public_key, created_at, sealed) VALUES (?1, ?2, ?3, ?4, ?5)"
        ) { statement throws(KeyDirectoryError) in
            try statement.bind(1, text: binding.kind.rawValue)
            try statement.bind(2, blob: binding.id)
            try statement.bind(3, blob: binding.publicKey)
            try statement.bind(4, binding.createdAt)
            try statement.bind(5, blob: sealed)
            _ = try statement.step()
        }
        if connection.changes == 0 { throw .duplicateItem }
    }

    package func updateIdentity(_ binding: IdentitySealing.Binding, sealed: [UInt8]) throws(KeyDirectoryError) {
        try connection.withStatement("UPDATE identities SET sealed = ?3 WHERE kind = ?1 AND id = ?2") { statement throws(KeyDirectoryError) in
            try statement.bind(1, text: binding.kind.rawValue)
            try statement.bind(2, blob: binding.id)
            try statement.bind(3, blob: sealed)
            _ = try statement.step()
        }
    }

    package func deleteIdentity(_ kind: IdentitySealing.Kind, id: KeyID) throws(KeyDirectoryError) -> Int {
        try connection.withStatement("DELETE FROM identities WHERE kind = ?1 AND id = ?2") { statement throws(KeyDirectoryError) in
            try statement.bind(1, text: kind.rawValue)
            try statement.bind(2, blob: id.bytes)
            _ = try statement.step()
        }
        return connection.changes
    }

    package func deviceRows(id: KeyID?) throws(KeyDirectoryError) -> [SealedIdentityRow] {
        try connection.withStatement(
            "SELECT id, public_key, created_at, revoked_at, sealed FROM devices WHERE ?1 IS NULL OR id = ?1 ORDER BY created_at, id"
        ) { statement throws(KeyDirectoryError) -> [SealedIdentityRow] in
            try statement.bind(1, optionalBlob: id?.bytes)
            var rows: [SealedIdentityRow] = []
            while try statement.step() {
                rows.append((
                    .init(kind: .registered, id: statement.bytes(0), publicKey: statement.bytes(1), createdAt: statement.int64(2),
                          revokedAt: statement.optionalInt64(3)),
                    statement.bytes(4)))
            }
            return rows
        }
    }

    package func putDevice(_ binding: IdentitySealing.Binding, sealed: [UInt8]) throws(KeyDirectoryError) {
        try connection.withStatement(
            "INSERT OR REPLACE INTO devices (id, public_key, created_at, revoked_at, sealed) VALUES (?1, ?2, ?3, ?4, ?5)"
        ) { statement throws(KeyDirectoryError) in
            try statement.bind(1, blob: binding.id)
            try statement.bind(2, blob: binding.publicKey)
            try statement.bind(3, binding.createdAt)
            try statement.bind(4, binding.revokedAt)
            try statement.bind(5, blob: sealed)
            _ = try statement.step()
        }
    }

    // MARK: Hooks

    /// The device store's bundle tombstones (`DeviceKeyStore.recordPurgeTombstones(before:_:recordKey:)`).
    package func willPurge(before cutoff: Int64) throws(KeyDirectoryError) {
        guard let recordKey else { throw .invalidArgument("a purge needs the store's epoch-record key") }
        try DeviceKeyStore.recordPurgeTombstones(before: cutoff, connection, recordKey: recordKey)
    }

    package func changed(conversation: String?) throws(KeyDirectoryError) {}
}
