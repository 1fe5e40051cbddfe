import PushSealCore

/// The per-conversation epoch record (file format 3, Docs/KEY-STORE.md §3.5): the newest epoch a
/// conversation was given and its key id, authenticated under the master key, so that a deleted
/// or rolled-back newest row is ``KeyStoreError/corruptedItem(_:)`` and never a silent fall-back
/// to an older epoch that a removed member still holds.
extension KeyStore {
    /// One `epochs` row as stored.
    package struct EpochRecord: Equatable {
        package static let columns = "conversation, epoch, kid, removed, tag"

        package var conversation: [UInt8]
        package var epoch: Int64
        package var kid: [UInt8]
        /// The newest epoch's key was removed through the API (`remove`, `purgeExpired`): the
        /// conversation has no current key until it is rotated.
        package var removed: Bool
        package var tag: [UInt8]

        /// A record tagged under `recordKey` (see ``ItemSealing/epochRecordKey(masterKey:)``).
        package init(conversation: [UInt8], epoch: Int64, kid: [UInt8], removed: Bool, recordKey: SecretKey) {
            self.conversation = conversation
            self.epoch = epoch
            self.kid = kid
            self.removed = removed
            self.tag = []
            self.tag = ItemSealing.epochRecordTag(
                conversation: conversation, epoch: epoch, keyID: kid, removed: removed, recordKey: recordKey)
        }

        /// A record as read from another backend's table (checked with ``isAuthentic(recordKey:)``).
        package init(conversation: [UInt8], epoch: Int64, kid: [UInt8], removed: Bool, tag: [UInt8]) {
            (self.conversation, self.epoch, self.kid, self.removed, self.tag) = (conversation, epoch, kid, removed, tag)
        }

        init(_ statement: SQLiteStatement) {
            conversation = statement.textBytes(0)
            epoch = statement.int64(1)
            kid = statement.bytes(2)
            removed = statement.int64(3) != 0
            tag = statement.bytes(4)
        }

        /// Whether the tag authenticates every column (constant-time comparison).
        package func isAuthentic(recordKey: SecretKey) -> Bool {
            let expected = ItemSealing.epochRecordTag(
                conversation: conversation, epoch: epoch, keyID: kid, removed: removed, recordKey: recordKey)
            guard tag.count == expected.count else { return false }
            return expected.withUnsafeBytes { e in tag.withUnsafeBytes { t in SecureMemory.constantTimeEqual(e, t) } }
        }

        /// The key id as a ``KeyID`` for errors (a zero id when the column is malformed).
        package var keyID: KeyID { KeyID(bytes: kid) ?? KeyID(bytes: [UInt8](repeating: 0, count: KeyID.byteCount))! }
    }

    /// The conversation's record, checked: nil when there is none; ``KeyStoreError/corruptedItem(_:)``
    /// when its tag does not verify.
    static func epochRecord(
        _ conversation: [UInt8], _ connection: SQLiteConnection, recordKey: SecretKey
    ) throws(KeyStoreError) -> EpochRecord? {
        let record = try connection.withStatement("SELECT \(EpochRecord.columns) FROM epochs WHERE conversation = ?1") {
            statement throws(KeyStoreError) -> EpochRecord? in
            try statement.bind(1, textBytes: conversation)
            return try statement.step() ? EpochRecord(statement) : nil
        }
        guard let record else { return nil }
        guard record.isAuthentic(recordKey: recordKey) else { throw .corruptedItem(record.keyID) }
        return record
    }

    static func writeEpochRecord(_ record: EpochRecord, _ connection: SQLiteConnection) throws(KeyStoreError) {
        try connection.withStatement(
            "INSERT OR REPLACE INTO epochs (\(EpochRecord.columns)) VALUES (?1, ?2, ?3, ?4, ?5)"
        ) { statement throws(KeyStoreError) in
            try statement.bind(1, textBytes: record.conversation)
            try statement.bind(2, record.epoch)
            try statement.bind(3, blob: record.kid)
            try statement.bind(4, Int64(record.removed ? 1 : 0))
            try statement.bind(5, blob: record.tag)
            _ = try statement.step()
        }
    }

    /// After inserting `item` (same transaction): the record moves up when `item` is the
    /// conversation's newest epoch. An existing record is verified first; a conversation that has
    /// other rows but no record is ``KeyStoreError/epochRecordMissing(conversation:)`` (the record
    /// was deleted, so which epochs were given out is unknown: a new one could repeat one).
    /// `checked`: the caller already refused a missing record (a bulk insert of several rows).
    static func advanceEpochRecord(
        for item: KeyItem, _ connection: SQLiteConnection, recordKey: SecretKey, checked: Bool = false
    ) throws(KeyStoreError) {
        let conversation = Array(item.conversation.utf8)
        try raiseEpochMark(conversation, to: item.epoch, connection, recordKey: recordKey)
        if let record = try epochRecord(conversation, connection, recordKey: recordKey) {
            if record.epoch >= item.epoch { return }
        } else if !checked {
            try refuseMissingEpochRecord(conversation, excluding: item.keyID.bytes, connection)
        }
        try writeEpochRecord(
            EpochRecord(conversation: conversation, epoch: item.epoch, kid: item.keyID.bytes, removed: false, recordKey: recordKey),
            connection)
    }

    /// ``KeyStoreError/epochRecordMissing(conversation:)`` when the conversation, which has no
    /// epoch record, has rows (other than `excluded`'s): its record was deleted outside the API.
    static func refuseMissingEpochRecord(_ conversation: [UInt8], excluding excluded: [UInt8]?, _ connection: SQLiteConnection) throws(KeyStoreError) {
        let others = try connection.withStatement("SELECT 1 FROM keys WHERE conversation = ?1 AND kid <> ?2 LIMIT 1") {
            statement throws(KeyStoreError) in
            try statement.bind(1, textBytes: conversation)
            try statement.bind(2, blob: excluded ?? [])
            return try statement.step()
        }
        if others { throw .epochRecordMissing(conversation: String(decoding: conversation, as: UTF8.self)) }
    }

    /// After deleting rows through the API (same transaction): every record whose newest key is
    /// gone is marked removed (its kid zeroed, re-tagged), so the conversation has no current key
    /// instead of looking corrupted and the epoch is not given out again; a record whose
    /// conversation has no rows left is deleted with its high-water mark, so nothing about a fully
    /// removed conversation stays in the file. Records that do not verify are left as they are (they stay corrupted).
    static func markRemovedEpochRecords(_ connection: SQLiteConnection, recordKey: SecretKey) throws(KeyStoreError) {
        let orphans = try connection.withStatement(
            "SELECT \(EpochRecord.columns) FROM epochs WHERE removed = 0 AND NOT EXISTS (SELECT 1 FROM keys WHERE keys.kid = epochs.kid)"
        ) { statement throws(KeyStoreError) -> [EpochRecord] in
            var records: [EpochRecord] = []
            while try statement.step() { records.append(EpochRecord(statement)) }
            return records
        }
        for record in orphans where record.isAuthentic(recordKey: recordKey) {
            let hasRows = try connection.withStatement("SELECT 1 FROM keys WHERE conversation = ?1 LIMIT 1") { statement throws(KeyStoreError) in
                try statement.bind(1, textBytes: record.conversation)
                return try statement.step()
            }
            if hasRows {
                let zeroID = [UInt8](repeating: 0, count: KeyID.byteCount)
                try writeEpochRecord(
                    EpochRecord(conversation: record.conversation, epoch: record.epoch, kid: zeroID, removed: true, recordKey: recordKey),
                    connection)
            } else {
                for table in ["epochs", "epoch_marks"] {
                    try connection.withStatement("DELETE FROM \(table) WHERE conversation = ?1") { statement throws(KeyStoreError) in
                        try statement.bind(1, textBytes: record.conversation)
                        _ = try statement.step()
                    }
                }
            }
        }
    }

    /// Format 2 -> 3: a record for every conversation, from its newest row as it is.
    static func createEpochRecords(_ connection: SQLiteConnection, masterKey: SecretKey) throws(KeyStoreError) {
        let recordKey = ItemSealing.epochRecordKey(masterKey: masterKey)
        let newest = try connection.withStatement(
            "SELECT conversation, epoch, kid FROM keys AS k WHERE epoch = (SELECT max(epoch) FROM keys WHERE conversation = k.conversation)"
        ) { statement throws(KeyStoreError) -> [EpochRecord] in
            var records: [EpochRecord] = []
            while try statement.step() {
                records.append(EpochRecord(
                    conversation: statement.textBytes(0), epoch: statement.int64(1), kid: statement.bytes(2), removed: false,
                    recordKey: recordKey))
            }
            return records
        }
        for record in newest { try writeEpochRecord(record, connection) }
    }
}
