import PushSealCore

/// The per-conversation high-water mark (file format 7, Docs/KEY-STORE.md §3.5): the highest epoch
/// this store ever gave out or stored for a conversation, authenticated under the epoch-record key
/// and never lowered; it is deleted only with the conversation's record through the API
/// (`removeConversation`, its last row removed or purged, the logout wipe), never by a deletion
/// of rows or records behind the store's back. A conversation whose rows and epoch record are put back from an older copy is
/// then ``KeyStoreError/rolledBack(conversation:epoch:highWater:)`` instead of serving the epoch a
/// removed member holds, and no epoch number at or below the mark is given out again.
///
/// `epoch_marks` row: `tag = HMAC-SHA256(rk, 0x04 || uint32be(len cid) || cid || int64be(epoch))`.
extension KeyStore {
    static let epochMarkFormat: UInt8 = 0x04

    static func epochMarkTag(conversation: [UInt8], epoch: Int64, recordKey: SecretKey) -> [UInt8] {
        var message: [UInt8] = [epochMarkFormat]
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: conversation.count).bigEndian) { message += $0 }
        message += conversation
        withUnsafeBytes(of: epoch.bigEndian) { message += $0 }
        return HMACSHA256.authenticationCode(for: message, using: recordKey)
    }

    /// The conversation's mark, checked; nil when there is none. A mark that does not verify is
    /// ``KeyStoreError/epochRecordMissing(conversation:)`` (the record's second half was edited).
    static func epochMark(_ conversation: [UInt8], _ connection: SQLiteConnection, recordKey: SecretKey) throws(KeyStoreError) -> Int64? {
        let found = try connection.withStatement("SELECT epoch, tag FROM epoch_marks WHERE conversation = ?1") {
            statement throws(KeyStoreError) -> (Int64, [UInt8])? in
            try statement.bind(1, textBytes: conversation)
            return try statement.step() ? (statement.int64(0), statement.bytes(1)) : nil
        }
        guard let (epoch, tag) = found else { return nil }
        let expected = epochMarkTag(conversation: conversation, epoch: epoch, recordKey: recordKey)
        guard tag.count == expected.count,
              expected.withUnsafeBytes({ e in tag.withUnsafeBytes { t in SecureMemory.constantTimeEqual(e, t) } })
        else { throw .epochRecordMissing(conversation: String(decoding: conversation, as: UTF8.self)) }
        return epoch
    }

    static func writeEpochMark(_ conversation: [UInt8], epoch: Int64, _ connection: SQLiteConnection, recordKey: SecretKey) throws(KeyStoreError) {
        try connection.withStatement("INSERT OR REPLACE INTO epoch_marks (conversation, epoch, tag) VALUES (?1, ?2, ?3)") {
            statement throws(KeyStoreError) in
            try statement.bind(1, textBytes: conversation)
            try statement.bind(2, epoch)
            try statement.bind(3, blob: epochMarkTag(conversation: conversation, epoch: epoch, recordKey: recordKey))
            _ = try statement.step()
        }
    }

    /// Raises the conversation's mark to `epoch` (never lowers it). Same transaction as the insert.
    static func raiseEpochMark(_ conversation: [UInt8], to epoch: Int64, _ connection: SQLiteConnection, recordKey: SecretKey) throws(KeyStoreError) {
        if let mark = try epochMark(conversation, connection, recordKey: recordKey), mark >= epoch { return }
        try writeEpochMark(conversation, epoch: epoch, connection, recordKey: recordKey)
    }

    /// The check `currentKey` makes once the record is read: a record below the mark is a rollback;
    /// a record without a mark (the mark deleted) is refused like a missing record.
    static func checkEpochMark(
        _ record: EpochRecord, conversation: String, _ connection: SQLiteConnection, recordKey: SecretKey
    ) throws(KeyStoreError) {
        guard let mark = try epochMark(record.conversation, connection, recordKey: recordKey) else {
            throw .epochRecordMissing(conversation: conversation)
        }
        if record.epoch < mark { throw .rolledBack(conversation: conversation, epoch: record.epoch, highWater: mark) }
    }

    /// Format 6 -> 7: every conversation's mark from its epoch record as it is.
    static func createEpochMarks(_ connection: SQLiteConnection, masterKey: SecretKey) throws(KeyStoreError) {
        let recordKey = ItemSealing.epochRecordKey(masterKey: masterKey)
        let records = try connection.withStatement("SELECT conversation, epoch FROM epochs") { statement throws(KeyStoreError) -> [([UInt8], Int64)] in
            var all: [([UInt8], Int64)] = []
            while try statement.step() { all.append((statement.textBytes(0), statement.int64(1))) }
            return all
        }
        for (conversation, epoch) in records { try writeEpochMark(conversation, epoch: epoch, connection, recordKey: recordKey) }
    }
}
