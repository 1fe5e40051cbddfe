import PushSealCore

/// The provider's key directory, whatever holds it: every conversation's epochs, by
/// (conversation, epoch) and by key id, each key sealed at rest under a master key with its whole
/// row bound into the associated data (Docs/KEY-STORE.md).
///
/// ``KeyStore`` (one SQLite file on one host) and `PostgreSQLKeyDirectory` (module
/// PushSealKeyDirectoryPostgreSQL, shared by many backend nodes) implement it with the same
/// model and guarantees; the provider and the `pushseal` tool use either through this protocol.
public protocol KeyDirectory: AnyObject, Sendable {
    /// Adds `key` as epoch `epoch` of `conversation` (nil: the conversation's next epoch, chosen
    /// in the inserting transaction). ``KeyStoreError/duplicateItem`` when the key id or the
    /// (conversation, epoch) exists.
    @discardableResult
    func add(_ key: ConversationKey, conversation: String, epoch: Int64?, label: String?, notAfter: Int64?) throws(KeyStoreError) -> KeyItem

    /// Rotates `conversation`: a fresh key (or `key`) at its highest epoch + 1, every earlier
    /// epoch retired now whatever lifetime it had (its not-after, the retire-by time receivers
    /// enforce, SPEC §3.5, becomes `min(not-after, rotation time)`), in one transaction. Concurrent rotations
    /// produce distinct, consecutive epochs.
    @discardableResult
    func rotate(conversation: String, label: String?, key: ConversationKey?) throws(KeyStoreError) -> StoredKey

    /// The conversation's current key: its newest epoch while it is live
    /// (``KeyStoreError/itemNotFound`` once it is retired or removed), never an older epoch.
    func currentKey(conversation: String) throws(KeyStoreError) -> StoredKey

    /// The key with id `id`, unsealed and checked; ``KeyStoreError/itemNotFound`` when absent.
    func key(for id: KeyID) throws(KeyStoreError) -> StoredKey

    /// Metadata of every item (or one conversation's), ordered by conversation and epoch; each row
    /// authenticated, no secret returned.
    func items(conversation: String?) throws(KeyStoreError) -> [KeyItem]

    /// Removes the item with id `keyID`; ``KeyStoreError/itemNotFound`` when absent.
    func remove(keyID: KeyID) throws(KeyStoreError)

    /// Removes every epoch of `conversation`; returns how many.
    @discardableResult
    func removeConversation(_ conversation: String) throws(KeyStoreError) -> Int

    /// Deletes every item retired more than `gracePeriod` seconds ago (`notAfter + gracePeriod <
    /// now`); returns how many.
    @discardableResult
    func purgeExpired(gracePeriod: Int64) throws(KeyStoreError) -> Int

    /// Seals every key, every epoch record (and, where the directory holds them, identities) and
    /// the master-key verifier again under the master key of `newSource`, in one transaction: all
    /// or nothing. This instance (and every other one still on the old key) then fails with
    /// ``KeyStoreError/locked(_:)``: open the directory again with `newSource`, then destroy the
    /// old master key (Docs/KEY-STORE.md §8).
    @discardableResult
    func rotateMasterKey(to newSource: MasterKeySource) throws(KeyStoreError) -> KeyStore.MasterKeyRotation
}

extension KeyStore: KeyDirectory {}
