import PushSealCore
import PushSealKeyDirectory

/// The per-conversation epoch record (file format 3, Docs/KEY-STORE.md §3.5): the newest epoch a
/// conversation was given and its key id, authenticated under the master key, so that a deleted
/// or rolled-back newest row is `KeyDirectoryError.corruptedItem(_:)` and never a silent fall-back
/// to an older epoch that a removed member still holds.
extension DeviceKeyStore {
    typealias EpochRecord = PushSealKeyDirectory.EpochRecord

    /// Format 2 -> 3: a record for every conversation, from its newest row as it is.
    static func createEpochRecords(_ connection: SQLiteConnection, masterKey: MasterKey) throws(KeyDirectoryError) {
        let recordKey = ItemSealing.epochRecordKey(masterKey: masterKey)
        let newest = try connection.withStatement(
            "SELECT conversation, epoch, kid FROM keys AS k WHERE epoch = (SELECT max(epoch) FROM keys WHERE conversation = k.conversation)"
        ) { statement throws(KeyDirectoryError) -> [EpochRecord] in
            var records: [EpochRecord] = []
            while try statement.step() {
                records.append(EpochRecord(
                    conversation: statement.textBytes(0), epoch: statement.int64(1), kid: statement.bytes(2), removed: false,
                    recordKey: recordKey))
            }
            return records
        }
        let transaction = SQLiteKeyDirectoryTransaction(connection, recordKey: recordKey)
        for record in newest { try transaction.putEpochRecord(record) }
    }
}

extension EpochRecord {
    /// A record from an `epochs` row.
    init(_ statement: SQLiteStatement) {
        self.init(
            conversation: statement.textBytes(0), epoch: statement.int64(1), kid: statement.bytes(2),
            removed: statement.int64(3) != 0, tag: statement.bytes(4))
    }
}
