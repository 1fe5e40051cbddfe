import PushSealCore
import PushSealKeyDirectory

/// Adding many keys at once (benchmark fixtures; package access only).
extension DeviceKeyStore {
    /// One key to add with ``addAll(_:)``.
    package struct NewItem: Sendable {
        /// The key.
        package var key: ConversationKey
        /// Its conversation (1–256 UTF-8 bytes).
        package var conversation: String
        /// Its epoch (≥ 0).
        package var epoch: Int64

        /// An item to add.
        package init(key: ConversationKey, conversation: String, epoch: Int64) {
            self.key = key
            self.conversation = conversation
            self.epoch = epoch
        }
    }

    /// Adds every item in one write transaction with one prepared statement, exactly as
    /// ``add(_:conversation:epoch:label:notAfter:)`` would add them one by one (same sealing, same
    /// rows), but with one journal write and sync instead of one per item. All or nothing:
    /// `KeyDirectoryError.duplicateItem` (nothing added) when any kid or (conversation, epoch) exists.
    package func addAll(_ items: [NewItem], label: String? = nil) throws(KeyDirectoryError) {
        for item in items {
            try KeyDirectoryLimits.check(newConversation: item.conversation)
            guard item.epoch >= 0 else { throw .invalidArgument("epoch \(item.epoch) is negative") }
        }
        let createdAt = clock()
        let sealed = items.map { item in
            let row = KeyItem(keyID: item.key.id, conversation: item.conversation, epoch: item.epoch, label: label, createdAt: createdAt, notAfter: nil)
            return ItemSealing.seal(item.key, binding: .init(row), masterKey: masterKey)
        }
        let recordKey = epochRecordKey
        do {
            try write(.conversations) { transaction throws(KeyDirectoryError) in
                let connection = transaction.connection
                // Checked before the rows go in (they are all this call's; the records follow).
                var seen: Set<[UInt8]> = []
                for item in items where seen.insert(Array(item.conversation.utf8)).inserted {
                    if try transaction.checkedEpochRecord(item.conversation, recordKey: recordKey) == nil {
                        try transaction.refuseMissingEpochRecord(item.conversation, excluding: nil)
                    }
                }
                try connection.withStatement(
                    "INSERT INTO keys (kid, conversation, epoch, label, created_at, not_after, sealed) VALUES (?1, ?2, ?3, ?4, ?5, NULL, ?6)"
                ) { statement throws(KeyDirectoryError) in
                    for (index, item) in items.enumerated() {
                        try statement.bind(1, blob: item.key.id.bytes)
                        try statement.bind(2, text: item.conversation)
                        try statement.bind(3, item.epoch)
                        try statement.bind(4, text: label)
                        try statement.bind(5, createdAt)
                        try statement.bind(6, blob: sealed[index])
                        _ = try statement.step()
                        statement.reset()
                    }
                }
                for item in items {
                    let added = KeyItem(keyID: item.key.id, conversation: item.conversation, epoch: item.epoch, label: label, createdAt: createdAt, notAfter: nil)
                    try transaction.advanceEpochRecord(for: added, recordKey: recordKey, checked: true)
                }
            }
        } catch let error {
            throw SQLiteKeyDirectoryTransaction.duplicate(error)
        }
    }
}
