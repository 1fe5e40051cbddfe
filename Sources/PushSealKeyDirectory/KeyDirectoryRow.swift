import PushSealCore

/// One `keys` row as stored (conversation and label as their exact bytes, for the
/// associated data): the SQLite store's `keys` rows and the PostgreSQL directory's `pushseal_keys` rows.
package struct KeyDirectoryRow {
    package static let columns = "kid, conversation, epoch, label, created_at, not_after, sealed"

    package var kid: [UInt8]
    package var conversation: [UInt8]
    package var epoch: Int64
    package var label: [UInt8]?
    package var createdAt: Int64
    package var notAfter: Int64?
    package var sealed: [UInt8]

    /// A row from its columns.
    package init(
        kid: [UInt8], conversation: [UInt8], epoch: Int64, label: [UInt8]?, createdAt: Int64, notAfter: Int64?, sealed: [UInt8]
    ) {
        self.kid = kid
        self.conversation = conversation
        self.epoch = epoch
        self.label = label
        self.createdAt = createdAt
        self.notAfter = notAfter
        self.sealed = sealed
    }

    /// What the row's sealed key is bound to: every other column.
    package var binding: ItemSealing.Binding {
        .init(keyID: kid, conversation: conversation, epoch: epoch, createdAt: createdAt, notAfter: notAfter, label: label)
    }

    package func item() throws(KeyDirectoryError) -> KeyItem {
        guard let keyID = KeyID(bytes: kid) else {
            throw .invalidStore("a row has a key id of \(kid.count) bytes")
        }
        return KeyItem(
            keyID: keyID, conversation: String(decoding: conversation, as: UTF8.self), epoch: epoch,
            label: label.map { String(decoding: $0, as: UTF8.self) }, createdAt: createdAt, notAfter: notAfter)
    }

    /// The row's key, unsealed under `masterKey` and checked against its key id, with its
    /// metadata; ``KeyDirectoryError/corruptedItem(_:)`` when it does not open (tampered or damaged).
    package func unseal(masterKey: MasterKey) throws(KeyDirectoryError) -> StoredKey {
        let item = try item()
        guard let key = ItemSealing.unseal(sealed, binding: binding, masterKey: masterKey)
        else { throw .corruptedItem(item.keyID) }
        return StoredKey(key: key, item: item)
    }
}
