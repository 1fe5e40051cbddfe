import PushSealCore
import PushSealKeyDirectory

/// The device's per-conversation bundle record (file format 5, SPEC §16.5 step 9, Docs/KEY-STORE.md
/// §3.6): the high-water epoch H installed from a bundle, its since time S_H, and the purge
/// tombstone P. Tagged under the epoch-record key with its own format byte (0x02; the epoch
/// record's is 0x01), so an edited record is refused and the install fails closed.
extension DeviceKeyStore {
    static let bundleRecordFormat: UInt8 = 0x02
    static let bundleRecordColumns = "conversation, high_water, high_water_since, purged_through, tag"

    /// The record's tag: HMAC-SHA256(record key, 0x02 || uint32be(len cid) || cid || int64be(H) ||
    /// int64be(S_H) || int64be(P)).
    static func bundleRecordTag(conversation: [UInt8], _ record: KeyBundleConversationRecord, recordKey: SecretKey) -> [UInt8] {
        var message: [UInt8] = [bundleRecordFormat]
        message.reserveCapacity(1 + 4 + conversation.count + 24)
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: conversation.count).bigEndian) { message += $0 }
        message += conversation
        for value in [record.highWater, record.highWaterSince, record.purgedThrough] {
            withUnsafeBytes(of: value.bigEndian) { message += $0 }
        }
        return HMACSHA256.authenticationCode(for: message, using: recordKey)
    }

    /// The conversation's bundle record, checked; nil when there is none.
    /// `KeyDirectoryError.corruptedItem(_:)` (with a zero id) when its tag does not verify.
    static func bundleRecord(
        _ conversation: [UInt8], _ connection: SQLiteConnection, recordKey: SecretKey
    ) throws(KeyDirectoryError) -> KeyBundleConversationRecord? {
        let found = try connection.withStatement("SELECT \(bundleRecordColumns) FROM bundle_records WHERE conversation = ?1") {
            statement throws(KeyDirectoryError) -> (KeyBundleConversationRecord, [UInt8])? in
            try statement.bind(1, textBytes: conversation)
            guard try statement.step() else { return nil }
            return (KeyBundleConversationRecord(highWater: statement.int64(1), highWaterSince: statement.int64(2), purgedThrough: statement.int64(3)),
                    statement.bytes(4))
        }
        guard let (record, tag) = found else { return nil }
        let expected = bundleRecordTag(conversation: conversation, record, recordKey: recordKey)
        guard tag.count == expected.count,
              expected.withUnsafeBytes({ e in tag.withUnsafeBytes { t in SecureMemory.constantTimeEqual(e, t) } })
        else { throw .corruptedItem(KeyID(bytes: [UInt8](repeating: 0, count: KeyID.byteCount))!) }
        return record
    }

    static func writeBundleRecord(
        _ conversation: [UInt8], _ record: KeyBundleConversationRecord, _ connection: SQLiteConnection, recordKey: SecretKey
    ) throws(KeyDirectoryError) {
        try connection.withStatement(
            "INSERT OR REPLACE INTO bundle_records (\(bundleRecordColumns)) VALUES (?1, ?2, ?3, ?4, ?5)"
        ) { statement throws(KeyDirectoryError) in
            try statement.bind(1, textBytes: conversation)
            try statement.bind(2, record.highWater)
            try statement.bind(3, record.highWaterSince)
            try statement.bind(4, record.purgedThrough)
            try statement.bind(5, blob: bundleRecordTag(conversation: conversation, record, recordKey: recordKey))
            _ = try statement.step()
        }
    }

    /// The record a conversation without one starts from: its newest stored epoch as H (keys
    /// added with `store add` or installed before format 5), that row's created time as S_H (an
    /// upper bound of its since time), no tombstone.
    static func initialBundleRecord(_ conversation: [UInt8], _ connection: SQLiteConnection) throws(KeyDirectoryError) -> KeyBundleConversationRecord {
        try connection.withStatement(
            "SELECT epoch, created_at FROM keys WHERE conversation = ?1 ORDER BY epoch DESC LIMIT 1"
        ) { statement throws(KeyDirectoryError) in
            try statement.bind(1, textBytes: conversation)
            guard try statement.step() else { return KeyBundleConversationRecord() }
            return KeyBundleConversationRecord(highWater: statement.int64(0), highWaterSince: statement.int64(1), purgedThrough: 0)
        }
    }

    /// Format 4 -> 5. On a device store: a record for every conversation it holds keys of
    /// (``initialBundleRecord(_:_:)``). On any other store (a key directory): every epoch it holds
    /// is marked shared — its K may have gone out in format-1 bundles, so it must never be the
    /// root of per-device keys (``isSharedEpoch(conversation:epoch:)``; rotate to continue).
    static func createBundleRecords(_ connection: SQLiteConnection, masterKey: MasterKey) throws(KeyDirectoryError) {
        let isDevice = try connection.withStatement("SELECT 1 FROM identities WHERE kind = 'device' LIMIT 1") { statement throws(KeyDirectoryError) in
            try statement.step()
        }
        guard isDevice else {
            try connection.execute("INSERT INTO shared_epochs (conversation, epoch) SELECT conversation, epoch FROM keys")
            return
        }
        let recordKey = ItemSealing.epochRecordKey(masterKey: masterKey)
        let conversations = try connection.withStatement("SELECT DISTINCT conversation FROM keys") { statement throws(KeyDirectoryError) in
            var all: [[UInt8]] = []
            while try statement.step() { all.append(statement.textBytes(0)) }
            return all
        }
        for conversation in conversations {
            try writeBundleRecord(conversation, initialBundleRecord(conversation, connection), connection, recordKey: recordKey)
        }
    }

    /// Whether epoch `epoch` of `conversation` was created before per-device keys (file format 5):
    /// its K may be known to every member that got a format-1 bundle, so per-device sealing refuses
    /// it (SPEC §16.9: rotate the conversation, and seal the new epoch per device).
    public func isSharedEpoch(conversation: String, epoch: Int64) throws(KeyDirectoryError) -> Bool {
        try KeyDirectoryLimits.check(conversation: conversation)
        return try session(.read) { connection throws(KeyDirectoryError) in
            try connection.withStatement("SELECT 1 FROM shared_epochs WHERE conversation = ?1 AND epoch = ?2") { statement throws(KeyDirectoryError) in
                try statement.bind(1, text: conversation)
                try statement.bind(2, epoch)
                return try statement.step()
            }
        }
    }

    /// Before a purge deletes the rows retired before `cutoff` (same transaction): each purged
    /// (cid, epoch) raises that conversation's tombstone P to at least the epoch, so a replayed
    /// bundle of a purged epoch is `epoch_purged` for ever. Only conversations with a record
    /// (device stores) are touched.
    static func recordPurgeTombstones(before cutoff: Int64, _ connection: SQLiteConnection, recordKey: SecretKey) throws(KeyDirectoryError) {
        let purged = try connection.withStatement(
            "SELECT conversation, max(epoch) FROM keys WHERE not_after IS NOT NULL AND not_after < ?1 GROUP BY conversation"
        ) { statement throws(KeyDirectoryError) -> [([UInt8], Int64)] in
            try statement.bind(1, cutoff)
            var all: [([UInt8], Int64)] = []
            while try statement.step() { all.append((statement.textBytes(0), statement.int64(1))) }
            return all
        }
        for (conversation, epoch) in purged {
            guard var record = try bundleRecord(conversation, connection, recordKey: recordKey) else { continue }
            guard epoch > record.purgedThrough else { continue }
            record.purgedThrough = epoch
            try writeBundleRecord(conversation, record, connection, recordKey: recordKey)
        }
    }
}
