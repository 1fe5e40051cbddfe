import PushSealCore
import PushSealKeyStore

/// The per-conversation epoch record on PostgreSQL (schema version 2; the SQLite store's record,
/// Docs/KEY-STORE.md §3.5, with the same tag): the newest epoch a conversation was given and its
/// key id, authenticated under the master key, so that a deleted or rolled-back newest row on
/// the server is ``KeyStoreError/corruptedItem(_:)``, never a silent fall-back to an older epoch
/// that a removed member still holds. Every write of a record holds its conversation's lock.
extension PostgreSQLKeyDirectory {
    typealias EpochRecord = KeyStore.EpochRecord

    /// The conversation's record, checked: nil when there is none; ``KeyStoreError/corruptedItem(_:)``
    /// when its tag does not verify.
    static func epochRecord(_ conversation: String, _ connection: PostgreSQLConnection, recordKey: SecretKey) throws(KeyStoreError) -> EpochRecord? {
        let rows = try connection.execute(
            "SELECT \(EpochRecord.columns) FROM pushseal_epochs WHERE conversation = $1", [.text(conversation)])
        return try checkedEpochRecord(rows, column: 0, recordKey: recordKey)
    }

    /// The record (its `EpochRecord.columns`) in the first row of `rows` from column `column` on, checked: nil when there is
    /// none (no row, or a NULL conversation from an outer join).
    static func checkedEpochRecord(_ rows: PostgreSQLConnection.Rows, column: Int, recordKey: SecretKey) throws(KeyStoreError) -> EpochRecord? {
        guard rows.count == 1, let conversation = rows.bytes(0, column) else { return nil }
        let record = EpochRecord(
            conversation: conversation, epoch: rows.int64(0, column + 1) ?? -1, kid: rows.bytes(0, column + 2) ?? [],
            removed: rows.int64(0, column + 3) != 0, tag: rows.bytes(0, column + 4) ?? [])
        guard record.isAuthentic(recordKey: recordKey) else { throw .corruptedItem(record.keyID) }
        return record
    }

    static func writeEpochRecord(_ record: EpochRecord, _ connection: PostgreSQLConnection) throws(KeyStoreError) {
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

    /// After inserting `item` (same transaction, conversation locked): the record moves up when
    /// `item` is the conversation's newest epoch. An existing record is verified first; other rows
    /// without a record are `KeyStoreError.epochRecordMissing` (which epochs were given out is
    /// unknown, so a new one could repeat one).
    static func advanceEpochRecord(for item: KeyItem, _ connection: PostgreSQLConnection, recordKey: SecretKey) throws(KeyStoreError) {
        if let record = try epochRecord(item.conversation, connection, recordKey: recordKey) {
            if record.epoch >= item.epoch { return }
        } else {
            let others = try connection.execute(
                "SELECT 1::int8 FROM pushseal_keys WHERE conversation = $1 AND kid <> $2 LIMIT 1", [.text(item.conversation), .bytes(item.keyID.bytes)])
            if others.count > 0 { throw .epochRecordMissing(conversation: item.conversation) }
        }
        try writeEpochRecord(
            EpochRecord(conversation: Array(item.conversation.utf8), epoch: item.epoch, kid: item.keyID.bytes, removed: false, recordKey: recordKey),
            connection)
    }

    /// After deleting rows of `conversation` through the API (same transaction, conversation
    /// locked): a record whose newest key is gone is marked removed (kid zeroed, re-tagged), so
    /// the conversation has no current key instead of looking corrupted and the epoch is not
    /// given out again; with no rows left the record is deleted. A record that does not verify is
    /// left as it is (it stays corrupted).
    static func markRemovedEpochRecord(_ conversation: String, _ connection: PostgreSQLConnection, recordKey: SecretKey) throws(KeyStoreError) {
        let found: EpochRecord?
        do throws(KeyStoreError) {
            found = try epochRecord(conversation, connection, recordKey: recordKey)
        } catch .corruptedItem(_) {
            return
        }
        guard let record = found, !record.removed else { return }
        let present = try connection.execute("SELECT 1::int8 FROM pushseal_keys WHERE kid = $1", [.bytes(record.kid)])
        guard present.count == 0 else { return }
        let remaining = try connection.execute("SELECT 1::int8 FROM pushseal_keys WHERE conversation = $1 LIMIT 1", [.text(conversation)])
        if remaining.count == 0 {
            try connection.execute("DELETE FROM pushseal_epochs WHERE conversation = $1", [.text(conversation)])
            return
        }
        try writeEpochRecord(
            EpochRecord(
                conversation: record.conversation, epoch: record.epoch, kid: [UInt8](repeating: 0, count: KeyID.byteCount), removed: true,
                recordKey: recordKey),
            connection)
    }

    /// Schema 1 -> 2: a record for every conversation, from its newest row as it is.
    static func createEpochRecords(_ connection: PostgreSQLConnection, masterKey: SecretKey) throws(KeyStoreError) {
        let recordKey = ItemSealing.epochRecordKey(masterKey: masterKey)
        let rows = try connection.execute(
            "SELECT DISTINCT ON (conversation) conversation, epoch, kid FROM pushseal_keys ORDER BY conversation, epoch DESC")
        for index in 0..<rows.count {
            try writeEpochRecord(
                EpochRecord(
                    conversation: rows.bytes(index, 0) ?? [], epoch: rows.int64(index, 1) ?? 0, kid: rows.bytes(index, 2) ?? [],
                    removed: false, recordKey: recordKey),
                connection)
        }
    }
}
