import PushSealCore
import PushSealKeyDirectory

/// The per-conversation epoch record on PostgreSQL (schema version 2; the SQLite store's record,
/// Docs/KEY-STORE.md §3.5, with the same tag): the newest epoch a conversation was given and its
/// key id, authenticated under the master key, so that a deleted or rolled-back newest row on
/// the server is `KeyDirectoryError.corruptedItem(_:)`, never a silent fall-back to an older epoch
/// that a removed member still holds. Every write of a record holds its conversation's lock.
extension PostgreSQLKeyDirectory {
    /// Schema 1 -> 2: a record for every conversation, from its newest row as it is.
    static func createEpochRecords(_ connection: PostgreSQLConnection, masterKey: MasterKey) throws(KeyDirectoryError) {
        let recordKey = ItemSealing.epochRecordKey(masterKey: masterKey)
        let rows = try connection.execute(
            "SELECT DISTINCT ON (conversation) conversation, epoch, kid FROM pushseal_keys ORDER BY conversation, epoch DESC")
        let transaction = PostgreSQLKeyDirectoryTransaction(connection, isRetry: false)
        for index in 0..<rows.count {
            try transaction.putEpochRecord(
                EpochRecord(
                    conversation: rows.bytes(index, 0) ?? [], epoch: rows.int64(index, 1) ?? 0, kid: rows.bytes(index, 2) ?? [],
                    removed: false, recordKey: recordKey))
        }
    }
}
