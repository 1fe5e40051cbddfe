import PushSealCore
import PushSealKeyDirectory

/// The store's at-rest values with caller-chosen salts, for the key-store test vectors
/// (Vectors/pushseal-v1-store.json) that a port keeping its own store checks. Never for storage:
/// the store draws every salt from the CSPRNG.
package enum StoreVectorValues {
    /// The store file format these values belong to (the newest one, `PRAGMA user_version`): a
    /// new format changes the vector file's `algorithm`, so the file is regenerated and reviewed.
    package static let fileFormatVersion = Schema.currentVersion

    /// A row's associated data (format 2) and sealed key (73 bytes) under `masterKey` with `salt`.
    package static func sealedItem(
        _ key: ConversationKey, conversation: String, epoch: Int64, label: String?, createdAt: Int64, notAfter: Int64?,
        masterKey: [UInt8], salt: [UInt8]
    ) -> (associatedData: [UInt8], sealed: [UInt8]) {
        let item = KeyItem(keyID: key.id, conversation: conversation, epoch: epoch, label: label, createdAt: createdAt, notAfter: notAfter)
        let binding = ItemSealing.Binding(item)
        return (binding.associatedData, ItemSealing.seal(key, binding: binding, masterKey: MasterKey(SecretKey(bytes: masterKey)), salt: salt))
    }

    /// The master-key verifier (57 bytes) with `salt`.
    package static func verifier(masterKey: [UInt8], salt: [UInt8]) -> [UInt8] {
        ItemSealing.makeVerifier(masterKey: MasterKey(SecretKey(bytes: masterKey)), salt: salt)
    }

    /// The duplicate-log tag of (cid, mid) and the digest of an envelope.
    package static func delivery(masterKey: [UInt8], conversation: String, messageID: String, envelope: [UInt8]) -> (tag: [UInt8], envelope: [UInt8]) {
        let logKey = ItemSealing.deliveryLogKey(masterKey: MasterKey(SecretKey(bytes: masterKey)))
        return (ItemSealing.deliveryTag(conversation: conversation, messageID: messageID, logKey: logKey),
                ItemSealing.envelopeTag(envelope, logKey: logKey))
    }

    /// The duplicate-log file's values for a mark of `tag` (Docs/KEY-STORE.md §2.1): the log id,
    /// the home slot in a new log's table (256 slots), the record slot's 128 bytes (its check
    /// is the last 8) and the header of that new, empty log.
    package static func deliveryLogSlot(
        masterKey: [UInt8], tag: [UInt8], seenAt: Int64, envelopeTag: [UInt8]?
    ) -> (logID: [UInt8], slotCount: Int64, slotIndex: Int64, slot: [UInt8], emptyHeader: [UInt8]) {
        let logID = ItemSealing.deliveryLogID(logKey: ItemSealing.deliveryLogKey(masterKey: MasterKey(SecretKey(bytes: masterKey))))
        let slotCount = DeliveryLogLayout.minimumSlotCount
        return (logID, slotCount, DeliveryLogLayout.homeSlot(of: tag, slotCount: slotCount),
                DeliveryLogLayout.encode(.init(tag: tag, seenAt: seenAt, envelopeTag: envelopeTag)),
                DeliveryLogLayout.Header.empty(slotCount: slotCount, logID: logID).encoded)
    }

    /// An epoch record's tag.
    package static func epochRecordTag(masterKey: [UInt8], conversation: String, epoch: Int64, keyID: [UInt8], removed: Bool) -> [UInt8] {
        ItemSealing.epochRecordTag(
            conversation: Array(conversation.utf8), epoch: epoch, keyID: keyID, removed: removed,
            recordKey: ItemSealing.epochRecordKey(masterKey: MasterKey(SecretKey(bytes: masterKey))))
    }
}
