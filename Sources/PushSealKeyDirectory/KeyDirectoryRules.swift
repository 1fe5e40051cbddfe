import PushSealCore

/// The key directory's rules, written once over a ``KeyDirectoryStorage``: adding and rotating
/// (every earlier epoch retired: `min(not-after, now)`), the current key from the authenticated
/// epoch record (never an older epoch), lookups, removal, purge, master-key rotation, provider key
/// pairs and device registrations. `SQLiteKeyDirectory` and `PostgreSQLKeyDirectory` implement
/// ``KeyDirectory`` by calling these (the device's `DeviceKeyStore` calls the ones it shares);
/// the backends supply only the storage: `DeviceKeyStore`'s file and `PostgreSQLKeyDirectory`'s server.
package struct KeyDirectoryRules<Storage: KeyDirectoryStorage>: Sendable {
    /// Where the rows are.
    package let storage: Storage
    /// The master key rows are sealed under.
    package let masterKey: MasterKey
    /// The key the epoch records, high-water marks and provider-key record are tagged under.
    package let recordKey: SecretKey
    /// The master-key verifier the instance checked its key against.
    package let verifier: [UInt8]
    /// The wall clock (seconds since 1970).
    package let clock: SecondsClock

    /// The rules over `storage` with the instance's keys.
    package init(storage: Storage, masterKey: MasterKey, recordKey: SecretKey, verifier: [UInt8], clock: @escaping SecondsClock) {
        (self.storage, self.masterKey, self.recordKey, self.verifier, self.clock) = (storage, masterKey, recordKey, verifier, clock)
    }

    // MARK: - Conversation keys

    /// `KeyDirectory.add(_:conversation:epoch:label:notAfter:)`.
    package func add(_ key: ConversationKey, conversation: String, epoch: Int64?, label: String?, notAfter: Int64?) throws(KeyDirectoryError) -> KeyItem {
        try KeyDirectoryLimits.check(newConversation: conversation)
        if let epoch, epoch < 0 { throw .invalidArgument("epoch \(epoch) is negative") }
        let createdAt = clock()
        let (masterKey, recordKey) = (self.masterKey, self.recordKey)
        return try storage.write(.conversation(conversation)) { transaction throws(KeyDirectoryError) -> KeyItem in
            if transaction.isRetry, let earlier = try Self.ownEarlierWrite(key, conversation: conversation, transaction, masterKey: masterKey) {
                return earlier.item
            }
            let epoch = if let epoch { epoch } else { try transaction.nextEpoch(conversation, recordKey: recordKey) }
            let item = KeyItem(keyID: key.id, conversation: conversation, epoch: epoch, label: label, createdAt: createdAt, notAfter: notAfter)
            try transaction.insert(key, as: item, masterKey: masterKey, recordKey: recordKey)
            return item
        }
    }

    /// `KeyDirectory.rotate(conversation:label:key:)`: a fresh key (or `supplied`) at the next
    /// epoch, every earlier epoch retired now whatever lifetime it had, in one transaction.
    package func rotate(conversation: String, label: String?, key supplied: ConversationKey?) throws(KeyDirectoryError) -> StoredKey {
        try KeyDirectoryLimits.check(newConversation: conversation)
        let now = clock()
        let key = supplied ?? ConversationKey.generate()
        let (masterKey, recordKey) = (self.masterKey, self.recordKey)
        return try storage.write(.conversation(conversation)) { transaction throws(KeyDirectoryError) -> StoredKey in
            if transaction.isRetry, let earlier = try Self.ownEarlierWrite(key, conversation: conversation, transaction, masterKey: masterKey) {
                return earlier
            }
            let epoch = try transaction.nextEpoch(conversation, recordKey: recordKey)
            try transaction.retireEpochs(of: conversation, below: epoch, at: now, masterKey: masterKey)
            let item = KeyItem(keyID: key.id, conversation: conversation, epoch: epoch, label: label, createdAt: now, notAfter: nil)
            try transaction.insert(key, as: item, masterKey: masterKey, recordKey: recordKey)
            return StoredKey(key: key, item: item)
        }
    }

    /// `KeyDirectory.currentKey(conversation:)`: the newest epoch from the authenticated epoch
    /// record, while it is live. A deleted newest row, a rolled-back record or an edited epoch or
    /// not-after time is ``KeyDirectoryError/corruptedItem(_:)``; a missing record while rows exist
    /// ``KeyDirectoryError/epochRecordMissing(conversation:)``; a record below the high-water mark
    /// ``KeyDirectoryError/rolledBack(conversation:epoch:highWater:)``. Never an older epoch.
    package func currentKey(conversation: String) throws(KeyDirectoryError) -> StoredKey {
        try KeyDirectoryLimits.check(conversation: conversation)
        let now = clock()
        let (masterKey, recordKey) = (self.masterKey, self.recordKey)
        let stored = try storage.read { transaction throws(KeyDirectoryError) -> StoredKey? in
            let (newestRow, stored) = try transaction.newestRowAndRecord(conversation: conversation)
            guard let stored else {
                // Rows without a record: the record (perhaps with the newest rows) was deleted.
                // Not the remaining rows' fault, and none of them may be served.
                if newestRow != nil { throw .epochRecordMissing(conversation: conversation) }
                return nil
            }
            guard stored.isAuthentic(recordKey: recordKey) else { throw .corruptedItem(stored.keyID) }
            let record = stored
            if transaction.keepsEpochMarks {
                // A record below the mark is a rollback; a record without a mark (the mark deleted)
                // is refused like a missing record.
                guard let mark = try transaction.checkedEpochMark(record.conversation, recordKey: recordKey) else {
                    throw .epochRecordMissing(conversation: conversation)
                }
                if record.epoch < mark { throw .rolledBack(conversation: conversation, epoch: record.epoch, highWater: mark) }
            }
            if record.removed {
                // Removed through the API; a row above the removed epoch would have moved the record.
                if let newestRow, newestRow.epoch > record.epoch, let id = KeyID(bytes: newestRow.kid) { throw .corruptedItem(id) }
                return nil
            }
            // The newest row must be exactly the recorded one: not deleted, not above it.
            guard let newestRow, newestRow.epoch == record.epoch, newestRow.kid == record.kid else {
                throw .corruptedItem(record.keyID)
            }
            return try newestRow.unseal(masterKey: masterKey)
        }
        guard let stored, stored.item.isLive(at: now) else { throw .itemNotFound }
        return stored
    }

    /// `KeyDirectory.key(for:)`: the key with id `id`, unsealed and checked (whether or not its
    /// not-after time passed).
    package func key(for id: KeyID) throws(KeyDirectoryError) -> StoredKey {
        let masterKey = self.masterKey
        return try storage.read { transaction throws(KeyDirectoryError) -> StoredKey in
            guard let row = try transaction.row(kid: id.bytes) else { throw .itemNotFound }
            return try row.unseal(masterKey: masterKey)
        }
    }

    /// `KeyDirectory.items(conversation:)`: every row authenticated (its key unsealed in zeroing
    /// memory and dropped), by conversation bytes and epoch.
    package func items(conversation: String?) throws(KeyDirectoryError) -> [KeyItem] {
        if let conversation { try KeyDirectoryLimits.check(conversation: conversation) }
        let masterKey = self.masterKey
        return try storage.read { transaction throws(KeyDirectoryError) -> [KeyItem] in
            let rows = try transaction.rows(conversation: conversation)
            var items: [KeyItem] = []
            items.reserveCapacity(rows.count)
            for row in rows { items.append(try row.unseal(masterKey: masterKey).item) }
            return items
        }
    }

    /// `KeyDirectory.remove(keyID:)`: under its conversation's lock; when it is the newest epoch,
    /// the record is marked removed (no current key until a rotation, never an older epoch).
    package func remove(keyID: KeyID) throws(KeyDirectoryError) {
        let owner = try storage.read { transaction throws(KeyDirectoryError) in try transaction.row(kid: keyID.bytes)?.conversation }
        guard let owner else { throw .itemNotFound }
        let conversation = String(decoding: owner, as: UTF8.self)
        let recordKey = self.recordKey
        let removed = try storage.write(.conversation(conversation)) { transaction throws(KeyDirectoryError) -> Int in
            let removed = try transaction.deleteRow(kid: keyID.bytes, conversation: conversation)
            if removed > 0 { try transaction.markRemovedEpochRecord(conversation, recordKey: recordKey) }
            return removed
        }
        guard removed > 0 else { throw .itemNotFound }
    }

    /// `KeyDirectory.removeConversation(_:)`: every epoch, the epoch record and the high-water
    /// mark (a later rotation starts at epoch 1 again).
    package func removeConversation(_ conversation: String) throws(KeyDirectoryError) -> Int {
        try KeyDirectoryLimits.check(conversation: conversation)
        return try storage.write(.conversation(conversation)) { transaction throws(KeyDirectoryError) -> Int in
            let removed = try transaction.deleteRows(conversation: conversation)
            try transaction.forgetConversation(conversation)
            return removed
        }
    }

    /// `KeyDirectory.purgeExpired(gracePeriod:)`: each affected conversation locked (in byte order,
    /// so purges never deadlock each other) before its rows retired before `now - gracePeriod` go;
    /// a removed newest epoch marks its record removed.
    package func purgeExpired(gracePeriod: Int64) throws(KeyDirectoryError) -> Int {
        guard let cutoff = try KeyDirectoryLimits.purgeCutoff(now: clock(), gracePeriod: gracePeriod) else { return 0 }
        let recordKey = self.recordKey
        return try storage.write(.conversations) { transaction throws(KeyDirectoryError) -> Int in
            try transaction.willPurge(before: cutoff)
            var removed = 0
            for conversation in try transaction.conversations(retiredBefore: cutoff) {
                try transaction.lock(conversation: conversation)
                removed += try transaction.deleteRows(conversation: conversation, retiredBefore: cutoff)
                try transaction.markRemovedEpochRecord(conversation, recordKey: recordKey)
            }
            if removed > 0 { try transaction.changed(conversation: nil) }
            return removed
        }
    }

    /// After a cut-off attempt: the row this very key was written as, when that commit happened
    /// (``KeyDirectoryError/duplicateItem`` when the key id is another conversation's).
    static func ownEarlierWrite(
        _ key: ConversationKey, conversation: String, _ transaction: Storage.Transaction, masterKey: MasterKey
    ) throws(KeyDirectoryError) -> StoredKey? {
        guard let row = try transaction.row(kid: key.id.bytes) else { return nil }
        let stored = try row.unseal(masterKey: masterKey)
        guard stored.item.conversation.utf8.elementsEqual(conversation.utf8) else { throw .duplicateItem }
        return stored
    }
}
