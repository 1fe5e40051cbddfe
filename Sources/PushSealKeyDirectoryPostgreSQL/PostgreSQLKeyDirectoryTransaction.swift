import PushSealCore
import PushSealKeyDirectory

/// The key directory's rows on the PostgreSQL server (tables `pushseal_keys`, `pushseal_epochs`,
/// `pushseal_meta`, `pushseal_identities`, `pushseal_devices`): the SQL of one transaction on a
/// pooled connection. The rules are `KeyDirectoryRules`'s; the transaction, its advisory locks and
/// its retries are ``PostgreSQLKeyDirectory``'s. The server keeps no high-water marks (the
/// caches' marks detect a rolled-back conversation, Docs/KEY-STORE.md §9).
package struct PostgreSQLKeyDirectoryTransaction: KeyDirectoryTransaction {
    let connection: PostgreSQLConnection
    package let isRetry: Bool

    init(_ connection: PostgreSQLConnection, isRetry: Bool) { (self.connection, self.isRetry) = (connection, isRetry) }

    package var keepsEpochMarks: Bool { false }

    // MARK: Keys

    package func row(kid: [UInt8]) throws(KeyDirectoryError) -> KeyDirectoryRow? {
        let rows = try connection.execute("SELECT \(KeyDirectoryRow.columns) FROM pushseal_keys WHERE kid = $1", [.bytes(kid)])
        return rows.count == 1 ? try KeyDirectoryRow(rows, 0) : nil
    }

    package func rows(conversation: String?) throws(KeyDirectoryError) -> [KeyDirectoryRow] {
        let rows = if let conversation {
            try connection.execute(
                "SELECT \(KeyDirectoryRow.columns) FROM pushseal_keys WHERE conversation = $1 ORDER BY epoch", [.text(conversation)])
        } else {
            try connection.execute("SELECT \(KeyDirectoryRow.columns) FROM pushseal_keys ORDER BY conversation COLLATE \"C\", epoch")
        }
        return try Self.keyRows(rows)
    }

    /// One statement, so the newest row and the record come from one snapshot (a rotation
    /// committed in between would otherwise look like a rolled-back row).
    package func newestRowAndRecord(conversation: String) throws(KeyDirectoryError) -> (row: KeyDirectoryRow?, record: EpochRecord?) {
        let rows = try connection.execute(
            """
            SELECT k.*, \(EpochRecord.columns.split(separator: ", ").map { "e.\($0)" }.joined(separator: ", "))
            FROM (SELECT $1::text AS conversation) AS wanted
            LEFT JOIN LATERAL (
                SELECT \(KeyDirectoryRow.columns) FROM pushseal_keys WHERE conversation = wanted.conversation ORDER BY epoch DESC LIMIT 1
            ) AS k ON true
            LEFT JOIN pushseal_epochs AS e ON e.conversation = wanted.conversation
            """,
            [.text(conversation)])
        let newest = rows.count == 1 && rows.bytes(0, 0) != nil ? try KeyDirectoryRow(rows, 0) : nil
        return (newest, Self.epochRecord(rows, column: KeyDirectoryRow.columns.split(separator: ", ").count))
    }

    package func highestEpoch(conversation: String) throws(KeyDirectoryError) -> Int64? {
        try connection.execute("SELECT max(epoch) FROM pushseal_keys WHERE conversation = $1", [.text(conversation)]).int64(0, 0)
    }

    package func hasRows(conversation: String, excluding excluded: [UInt8]?) throws(KeyDirectoryError) -> Bool {
        try connection.execute(
            "SELECT 1::int8 FROM pushseal_keys WHERE conversation = $1 AND kid <> $2 LIMIT 1", [.text(conversation), .bytes(excluded ?? [])]
        ).count > 0
    }

    package func insert(_ row: KeyDirectoryRow) throws(KeyDirectoryError) {
        do throws(KeyDirectoryError) {
            try connection.execute(
                "INSERT INTO pushseal_keys (kid, conversation, epoch, label, created_at, not_after, sealed) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                [
                    .bytes(row.kid), .text(String(decoding: row.conversation, as: UTF8.self)), .int64(row.epoch),
                    row.label.map { .text(String(decoding: $0, as: UTF8.self)) } ?? .nullText,
                    .int64(row.createdAt), row.notAfter.map { .int64($0) } ?? .nullInt64, .bytes(row.sealed),
                ])
        } catch {
            if case .server("23505", _) = error { throw .duplicateItem }
            if case .server("22021", _) = error { throw .invalidArgument("the conversation id or label is not valid text for the server (NUL byte?)") }
            throw error
        }
    }

    package func liveRows(conversation: String, below epoch: Int64, after time: Int64) throws(KeyDirectoryError) -> [KeyDirectoryRow] {
        try Self.keyRows(connection.execute(
            """
            SELECT \(KeyDirectoryRow.columns) FROM pushseal_keys
            WHERE conversation = $1 AND epoch < $2 AND (not_after IS NULL OR not_after > $3) FOR UPDATE
            """,
            [.text(conversation), .int64(epoch), .int64(time)]))
    }

    package func update(_ row: KeyDirectoryRow) throws(KeyDirectoryError) {
        try connection.execute(
            "UPDATE pushseal_keys SET not_after = $2, sealed = $3 WHERE kid = $1",
            [.bytes(row.kid), row.notAfter.map { .int64($0) } ?? .nullInt64, .bytes(row.sealed)])
    }

    package func updateSealed(_ row: KeyDirectoryRow) throws(KeyDirectoryError) {
        try connection.execute("UPDATE pushseal_keys SET sealed = $2 WHERE kid = $1", [.bytes(row.kid), .bytes(row.sealed)])
    }

    package func deleteRow(kid: [UInt8], conversation: String) throws(KeyDirectoryError) -> Int {
        try connection.execute(
            "DELETE FROM pushseal_keys WHERE kid = $1 AND conversation = $2 RETURNING epoch", [.bytes(kid), .text(conversation)]
        ).count
    }

    package func deleteRows(conversation: String) throws(KeyDirectoryError) -> Int {
        try connection.execute("DELETE FROM pushseal_keys WHERE conversation = $1 RETURNING epoch", [.text(conversation)]).count
    }

    package func conversations(retiredBefore cutoff: Int64) throws(KeyDirectoryError) -> [String] {
        let due = try connection.execute(
            "SELECT DISTINCT conversation COLLATE \"C\" AS c FROM pushseal_keys WHERE not_after IS NOT NULL AND not_after < $1 ORDER BY c",
            [.int64(cutoff)])
        return (0..<due.count).map { String(decoding: due.bytes($0, 0) ?? [], as: UTF8.self) }
    }

    package func deleteRows(conversation: String, retiredBefore cutoff: Int64) throws(KeyDirectoryError) -> Int {
        try connection.execute(
            "DELETE FROM pushseal_keys WHERE conversation = $1 AND not_after IS NOT NULL AND not_after < $2 RETURNING epoch",
            [.text(conversation), .int64(cutoff)]
        ).count
    }

    /// The conversation's transaction-scoped advisory lock.
    package func lock(conversation: String) throws(KeyDirectoryError) {
        try connection.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [.text(conversation)])
    }

    // MARK: Epoch records

    package func epochRecord(conversation: String) throws(KeyDirectoryError) -> EpochRecord? {
        Self.epochRecord(
            try connection.execute("SELECT \(EpochRecord.columns) FROM pushseal_epochs WHERE conversation = $1", [.text(conversation)]),
            column: 0)
    }

    package func epochRecords() throws(KeyDirectoryError) -> [EpochRecord] {
        let rows = try connection.execute("SELECT \(EpochRecord.columns) FROM pushseal_epochs ORDER BY conversation COLLATE \"C\"")
        return (0..<rows.count).compactMap { Self.epochRecord(rows, $0, column: 0) }
    }

    package func putEpochRecord(_ record: EpochRecord) throws(KeyDirectoryError) {
        try connection.execute(
            """
            INSERT INTO pushseal_epochs (conversation, epoch, kid, removed, tag) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (conversation) DO UPDATE SET epoch = EXCLUDED.epoch, kid = EXCLUDED.kid, removed = EXCLUDED.removed, tag = EXCLUDED.tag
            """,
            [
                .text(String(decoding: record.conversation, as: UTF8.self)), .int64(record.epoch), .bytes(record.kid),
                .int64(record.removed ? 1 : 0), .bytes(record.tag),
            ])
    }

    package func forgetConversation(_ conversation: String) throws(KeyDirectoryError) {
        try connection.execute("DELETE FROM pushseal_epochs WHERE conversation = $1", [.text(conversation)])
    }

    package func epochMark(conversation: [UInt8]) throws(KeyDirectoryError) -> (epoch: Int64, tag: [UInt8])? { nil }
    package func epochMarkConversations() throws(KeyDirectoryError) -> [[UInt8]] { [] }
    package func putEpochMark(conversation: [UInt8], epoch: Int64, tag: [UInt8]) throws(KeyDirectoryError) {}

    /// The record (its `EpochRecord.columns`) in row `index` of `rows` from column `column` on, as
    /// stored: nil when there is none (no row, or a NULL conversation from an outer join).
    static func epochRecord(_ rows: PostgreSQLConnection.Rows, _ index: Int = 0, column: Int) -> EpochRecord? {
        guard rows.count > index, let conversation = rows.bytes(index, column) else { return nil }
        return EpochRecord(
            conversation: conversation, epoch: rows.int64(index, column + 1) ?? -1, kid: rows.bytes(index, column + 2) ?? [],
            removed: rows.int64(index, column + 3) != 0, tag: rows.bytes(index, column + 4) ?? [])
    }

    // MARK: Meta values

    package func meta(_ name: String) throws(KeyDirectoryError) -> [UInt8]? {
        let rows = try connection.execute("SELECT value FROM pushseal_meta WHERE name = $1", [.text(name)])
        return rows.count == 1 ? rows.bytes(0, 0) ?? [] : nil
    }

    package func setMeta(_ name: String, _ value: [UInt8]?) throws(KeyDirectoryError) {
        guard let value else {
            try connection.execute("DELETE FROM pushseal_meta WHERE name = $1", [.text(name)])
            return
        }
        try connection.execute(
            "INSERT INTO pushseal_meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value",
            [.text(name), .bytes(value)])
    }

    // MARK: Identities and registered devices

    package func identityRows(_ kind: IdentitySealing.Kind) throws(KeyDirectoryError) -> [SealedIdentityRow] {
        let rows = try connection.execute(
            "SELECT id, public_key, created_at, sealed FROM pushseal_identities WHERE kind = $1 ORDER BY created_at, seq", [.text(kind.rawValue)])
        var result: [SealedIdentityRow] = []
        for index in 0..<rows.count {
            guard let id = rows.bytes(index, 0), let publicKey = rows.bytes(index, 1), let createdAt = rows.int64(index, 2),
                  let sealed = rows.bytes(index, 3)
            else { throw .invalidStore("a pushseal_identities row has a NULL or malformed column") }
            result.append((IdentitySealing.Binding(kind: kind, id: id, publicKey: publicKey, createdAt: createdAt), sealed))
        }
        return result
    }

    package func insertIdentity(_ binding: IdentitySealing.Binding, sealed: [UInt8]) throws(KeyDirectoryError) {
        do throws(KeyDirectoryError) {
            try connection.execute(
                "INSERT INTO pushseal_identities (kind, id, public_key, created_at, sealed) VALUES ($1, $2, $3, $4, $5)",
                [.text(binding.kind.rawValue), .bytes(binding.id), .bytes(binding.publicKey), .int64(binding.createdAt), .bytes(sealed)])
        } catch {
            if case .server("23505", _) = error { throw .duplicateItem }
            throw error
        }
    }

    package func updateIdentity(_ binding: IdentitySealing.Binding, sealed: [UInt8]) throws(KeyDirectoryError) {
        try connection.execute(
            "UPDATE pushseal_identities SET sealed = $3 WHERE kind = $1 AND id = $2", [.text(binding.kind.rawValue), .bytes(binding.id), .bytes(sealed)])
    }

    package func deleteIdentity(_ kind: IdentitySealing.Kind, id: KeyID) throws(KeyDirectoryError) -> Int {
        try connection.execute(
            "DELETE FROM pushseal_identities WHERE kind = $1 AND id = $2 RETURNING id", [.text(kind.rawValue), .bytes(id.bytes)]
        ).count
    }

    package func deviceRows(id: KeyID?) throws(KeyDirectoryError) -> [SealedIdentityRow] {
        let select = "SELECT id, public_key, created_at, revoked_at, sealed FROM pushseal_devices"
        let rows = if let id {
            try connection.execute(select + " WHERE id = $1", [.bytes(id.bytes)])
        } else {
            try connection.execute(select + " ORDER BY created_at, seq")
        }
        var result: [SealedIdentityRow] = []
        for index in 0..<rows.count {
            guard let id = rows.bytes(index, 0), let publicKey = rows.bytes(index, 1), let createdAt = rows.int64(index, 2),
                  let sealed = rows.bytes(index, 4)
            else { throw .invalidStore("a pushseal_devices row has a NULL or malformed column") }
            let revokedAt = rows.int64(index, 3)
            guard revokedAt != nil || rows.bytes(index, 3) == nil else { throw .invalidStore("a pushseal_devices row has a malformed revoked_at") }
            result.append((IdentitySealing.Binding(kind: .registered, id: id, publicKey: publicKey, createdAt: createdAt, revokedAt: revokedAt), sealed))
        }
        return result
    }

    package func putDevice(_ binding: IdentitySealing.Binding, sealed: [UInt8]) throws(KeyDirectoryError) {
        try connection.execute(
            """
            INSERT INTO pushseal_devices (id, public_key, created_at, revoked_at, sealed) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (id) DO UPDATE SET revoked_at = EXCLUDED.revoked_at, sealed = EXCLUDED.sealed
            """,
            [.bytes(binding.id), .bytes(binding.publicKey), .int64(binding.createdAt), binding.revokedAt.map { .int64($0) } ?? .nullInt64, .bytes(sealed)])
    }

    // MARK: Hooks

    /// The directory keeps no duplicate log.

    /// The directory keeps no bundle records.
    package func willPurge(before cutoff: Int64) throws(KeyDirectoryError) {}

    /// `NOTIFY` ``PostgreSQLKeyDirectory/notificationChannel`` with the conversation (empty: any), delivered at commit.
    package func changed(conversation: String?) throws(KeyDirectoryError) {
        try connection.execute("SELECT pg_notify($1, $2)", [.text(PostgreSQLKeyDirectory.notificationChannel), .text(conversation ?? "")])
    }

    /// Every key row of `rows`.
    static func keyRows(_ rows: PostgreSQLConnection.Rows) throws(KeyDirectoryError) -> [KeyDirectoryRow] {
        var result: [KeyDirectoryRow] = []
        result.reserveCapacity(rows.count)
        for index in 0..<rows.count { result.append(try KeyDirectoryRow(rows, index)) }
        return result
    }
}
