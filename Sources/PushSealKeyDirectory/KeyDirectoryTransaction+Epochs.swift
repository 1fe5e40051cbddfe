import PushSealCore

/// The epoch rules inside one transaction, written once for every backend: the next epoch, the
/// epoch record and high-water mark that move with every insert, the retirement of earlier
/// epochs, and the record of a conversation whose newest key was removed (Docs/KEY-STORE.md §3.5).
extension KeyDirectoryTransaction {
    /// The conversation's record, checked: nil when there is none;
    /// ``KeyDirectoryError/corruptedItem(_:)`` when its tag does not verify.
    package func checkedEpochRecord(_ conversation: String, recordKey: SecretKey) throws(KeyDirectoryError) -> EpochRecord? {
        guard let record = try epochRecord(conversation: conversation) else { return nil }
        guard record.isAuthentic(recordKey: recordKey) else { throw .corruptedItem(record.keyID) }
        return record
    }

    /// The conversation's high-water mark, checked; nil when there is none (or the backend keeps
    /// none). A mark that does not verify is ``KeyDirectoryError/epochRecordMissing(conversation:)``.
    package func checkedEpochMark(_ conversation: [UInt8], recordKey: SecretKey) throws(KeyDirectoryError) -> Int64? {
        guard keepsEpochMarks, let (epoch, tag) = try epochMark(conversation: conversation) else { return nil }
        let expected = EpochRecord.markTag(conversation: conversation, epoch: epoch, recordKey: recordKey)
        guard tag.count == expected.count,
              expected.withUnsafeBytes({ e in tag.withUnsafeBytes { t in SecureMemory.constantTimeEqual(e, t) } })
        else { throw .epochRecordMissing(conversation: String(decoding: conversation, as: UTF8.self)) }
        return epoch
    }

    /// Writes the conversation's mark at `epoch` (tagged under `recordKey`).
    package func writeEpochMark(_ conversation: [UInt8], epoch: Int64, recordKey: SecretKey) throws(KeyDirectoryError) {
        try putEpochMark(conversation: conversation, epoch: epoch, tag: EpochRecord.markTag(conversation: conversation, epoch: epoch, recordKey: recordKey))
    }

    /// The conversation's next epoch: its highest + 1 (of its rows, its epoch record and its
    /// high-water mark, so an epoch removed through the API, or whose rows and record were
    /// deleted, is never given out again), or 1 when it has none of them. Inside the write
    /// transaction that inserts it.
    package func nextEpoch(_ conversation: String, recordKey: SecretKey) throws(KeyDirectoryError) -> Int64 {
        let highestRow = try highestEpoch(conversation: conversation)
        let recorded = try checkedEpochRecord(conversation, recordKey: recordKey)?.epoch
        let mark = try checkedEpochMark(Array(conversation.utf8), recordKey: recordKey)
        let highest = [highestRow, recorded, mark].compactMap { $0 }.max()
        if highest == Int64.max { throw .invalidArgument("conversation \(conversation) is at the last epoch") }
        return (highest ?? 0) + 1
    }

    /// After inserting `item` (same transaction): the high-water mark rises to its epoch (never
    /// lowered) and the record moves up when `item` is the conversation's newest epoch. An
    /// existing record is verified first; a conversation that has other rows but no record is
    /// ``KeyDirectoryError/epochRecordMissing(conversation:)`` (the record was deleted, so which
    /// epochs were given out is unknown: a new one could repeat one). `checked`: the caller
    /// already refused a missing record (a bulk insert of several rows).
    package func advanceEpochRecord(for item: KeyItem, recordKey: SecretKey, checked: Bool = false) throws(KeyDirectoryError) {
        let conversation = Array(item.conversation.utf8)
        if keepsEpochMarks {
            let mark = try checkedEpochMark(conversation, recordKey: recordKey)
            if mark.map({ $0 < item.epoch }) ?? true { try writeEpochMark(conversation, epoch: item.epoch, recordKey: recordKey) }
        }
        if let record = try checkedEpochRecord(item.conversation, recordKey: recordKey) {
            if record.epoch >= item.epoch { return }
        } else if !checked {
            try refuseMissingEpochRecord(item.conversation, excluding: item.keyID.bytes)
        }
        try putEpochRecord(EpochRecord(conversation: conversation, epoch: item.epoch, kid: item.keyID.bytes, removed: false, recordKey: recordKey))
    }

    /// ``KeyDirectoryError/epochRecordMissing(conversation:)`` when the conversation, which has no
    /// epoch record, has rows (other than `excluded`'s): its record was deleted outside the API.
    package func refuseMissingEpochRecord(_ conversation: String, excluding excluded: [UInt8]?) throws(KeyDirectoryError) {
        if try hasRows(conversation: conversation, excluding: excluded) { throw .epochRecordMissing(conversation: conversation) }
    }

    /// After deleting rows of `conversation` through the API (same transaction): a record whose
    /// newest key is gone is marked removed (kid zeroed, re-tagged), so the conversation has no
    /// current key instead of looking corrupted and the epoch is not given out again; with no rows
    /// left the record goes with its high-water mark, so nothing about a fully removed
    /// conversation stays. A record that does not verify is left as it is (it stays corrupted).
    package func markRemovedEpochRecord(_ conversation: String, recordKey: SecretKey) throws(KeyDirectoryError) {
        let found: EpochRecord?
        do throws(KeyDirectoryError) {
            found = try checkedEpochRecord(conversation, recordKey: recordKey)
        } catch .corruptedItem(_) {
            return
        }
        guard let record = found, !record.removed, try row(kid: record.kid) == nil else { return }
        guard try hasRows(conversation: conversation, excluding: nil) else {
            try forgetConversation(conversation)
            return
        }
        try putEpochRecord(
            EpochRecord(
                conversation: record.conversation, epoch: record.epoch, kid: [UInt8](repeating: 0, count: KeyID.byteCount), removed: true,
                recordKey: recordKey))
    }

    /// Every epoch of `conversation` below `epoch` still live at `retireAt` — whatever lifetime it
    /// had — gets the not-after time `retireAt`, i.e. `min(not-after, retireAt)`, each row
    /// unsealed (a tampered one rolls the transaction back as ``KeyDirectoryError/corruptedItem(_:)``)
    /// and sealed again, since its not-after time is bound into it.
    package func retireEpochs(of conversation: String, below epoch: Int64, at retireAt: Int64, masterKey: MasterKey) throws(KeyDirectoryError) {
        for row in try liveRows(conversation: conversation, below: epoch, after: retireAt) {
            try setNotAfter(retireAt, of: row, masterKey: masterKey)
        }
    }

    /// Re-seals `row` with the not-after time `notAfter` (a tampered row is ``KeyDirectoryError/corruptedItem(_:)``).
    package func setNotAfter(_ notAfter: Int64?, of row: KeyDirectoryRow, masterKey: MasterKey) throws(KeyDirectoryError) {
        let stored = try row.unseal(masterKey: masterKey)
        var updated = row
        updated.notAfter = notAfter
        updated.sealed = ItemSealing.seal(stored.key, binding: updated.binding, masterKey: masterKey)
        try update(updated)
    }

    /// Inserts `key` as `item`, sealed under `masterKey` with its row bound in, and moves the
    /// epoch record.
    package func insert(_ key: ConversationKey, as item: KeyItem, masterKey: MasterKey, recordKey: SecretKey) throws(KeyDirectoryError) {
        let sealed = ItemSealing.seal(key, binding: .init(item), masterKey: masterKey)
        try insert(KeyDirectoryRow(
            kid: item.keyID.bytes, conversation: Array(item.conversation.utf8), epoch: item.epoch, label: item.label.map { Array($0.utf8) },
            createdAt: item.createdAt, notAfter: item.notAfter, sealed: sealed))
        try advanceEpochRecord(for: item, recordKey: recordKey)
    }
}
