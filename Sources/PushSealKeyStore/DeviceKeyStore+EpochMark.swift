import PushSealCore
import PushSealKeyDirectory

/// The per-conversation high-water mark (file format 7, Docs/KEY-STORE.md §3.5): the highest epoch
/// this store ever gave out or stored for a conversation, authenticated under the epoch-record key
/// and never lowered; it is deleted only with the conversation's record through the API
/// (`removeConversation`, its last row removed or purged, the logout wipe), never by a deletion
/// of rows or records behind the store's back. A conversation whose rows and epoch record are put back from an older copy is
/// then `KeyDirectoryError.rolledBack(conversation:epoch:highWater:)` instead of serving the epoch a
/// removed member holds, and no epoch number at or below the mark is given out again.
///
/// `epoch_marks` row: `tag = HMAC-SHA256(rk, 0x04 || uint32be(len cid) || cid || int64be(epoch))`.
extension DeviceKeyStore {
    /// Format 6 -> 7: every conversation's mark from its epoch record as it is.
    static func createEpochMarks(_ connection: SQLiteConnection, masterKey: MasterKey) throws(KeyDirectoryError) {
        let recordKey = ItemSealing.epochRecordKey(masterKey: masterKey)
        let records = try connection.withStatement("SELECT conversation, epoch FROM epochs") { statement throws(KeyDirectoryError) -> [([UInt8], Int64)] in
            var all: [([UInt8], Int64)] = []
            while try statement.step() { all.append((statement.textBytes(0), statement.int64(1))) }
            return all
        }
        let transaction = SQLiteKeyDirectoryTransaction(connection, recordKey: recordKey)
        for (conversation, epoch) in records { try transaction.writeEpochMark(conversation, epoch: epoch, recordKey: recordKey) }
    }
}
