import PushSealCore

/// The provider's key directory, whatever holds it: every conversation's epochs, by
/// (conversation, epoch) and by key id, each key sealed at rest under a master key with its whole
/// row bound into the associated data (Docs/KEY-STORE.md).
///
/// `SQLiteKeyDirectory` (module PushSealKeyDirectorySQLite, one SQLite file on one host) and `PostgreSQLKeyDirectory` (module
/// PushSealKeyDirectoryPostgreSQL, shared by many backend nodes) implement it with the same
/// model and guarantees; the provider and the `pushseal` tool use either through this protocol.
public protocol KeyDirectory: AnyObject, Sendable {
    /// Adds `key` as epoch `epoch` of `conversation` (nil: the conversation's next epoch, chosen
    /// in the inserting transaction). ``KeyDirectoryError/duplicateItem`` when the key id or the
    /// (conversation, epoch) exists.
    @discardableResult
    func add(_ key: ConversationKey, conversation: String, epoch: Int64?, label: String?, notAfter: Int64?) throws(KeyDirectoryError) -> KeyItem

    /// Rotates `conversation`: a fresh key (or `key`) at its highest epoch + 1, every earlier
    /// epoch retired now whatever lifetime it had (its not-after, the retire-by time receivers
    /// enforce, SPEC §3.5, becomes `min(not-after, rotation time)`), in one transaction. Concurrent rotations
    /// produce distinct, consecutive epochs.
    @discardableResult
    func rotate(conversation: String, label: String?, key: ConversationKey?) throws(KeyDirectoryError) -> StoredKey

    /// The conversation's current key: its newest epoch while it is live
    /// (``KeyDirectoryError/itemNotFound`` once it is retired or removed), never an older epoch.
    func currentKey(conversation: String) throws(KeyDirectoryError) -> StoredKey

    /// The key with id `id`, unsealed and checked; ``KeyDirectoryError/itemNotFound`` when absent.
    func key(for id: KeyID) throws(KeyDirectoryError) -> StoredKey

    /// Metadata of every item (or one conversation's), ordered by conversation and epoch; each row
    /// authenticated, no secret returned.
    func items(conversation: String?) throws(KeyDirectoryError) -> [KeyItem]

    /// Removes the item with id `keyID`; ``KeyDirectoryError/itemNotFound`` when absent.
    func remove(keyID: KeyID) throws(KeyDirectoryError)

    /// Removes every epoch of `conversation`; returns how many.
    @discardableResult
    func removeConversation(_ conversation: String) throws(KeyDirectoryError) -> Int

    /// Deletes every item retired more than `gracePeriod` seconds ago (`notAfter + gracePeriod <
    /// now`); returns how many.
    @discardableResult
    func purgeExpired(gracePeriod: Int64) throws(KeyDirectoryError) -> Int

    /// Seals every key, every epoch record (and, where the directory holds them, identities) and
    /// the master-key verifier again under the master key of `newSource`, in one transaction: all
    /// or nothing. This instance (and every other one still on the old key) then fails with
    /// ``KeyDirectoryError/locked(_:)``: open the directory again with `newSource`, then destroy the
    /// old master key (Docs/KEY-STORE.md §8).
    @discardableResult
    func rotateMasterKey(to newSource: MasterKeySource) throws(KeyDirectoryError) -> MasterKeyRotation

    // MARK: Identities (Docs/KEY-STORE.md §3.6, §3.7)

    /// Creates a provider key pair (X25519, the private half sealed under the master key). The
    /// first one is current at once; a later one is not used for bundles until
    /// ``promoteProviderKey(id:)``, so devices can pin it first.
    @discardableResult
    func createProviderKey() throws(KeyDirectoryError) -> ProviderKeyInfo

    /// Every provider key pair's public facts, oldest first.
    func providerKeys() throws(KeyDirectoryError) -> [ProviderKeyInfo]

    /// The provider key pair with `id`, or the current (recorded) one when `id` is nil;
    /// ``KeyDirectoryError/itemNotFound`` when there is none, ``KeyDirectoryError/providerKeyMissing(_:)``
    /// when the current one's row or its record was deleted or edited outside the API.
    func providerKey(id: KeyID?) throws(KeyDirectoryError) -> IdentityKeyPair

    /// Makes the provider key pair `id` the current one; ``KeyDirectoryError/itemNotFound`` when absent.
    func promoteProviderKey(id: KeyID) throws(KeyDirectoryError)

    /// Removes the provider key pair `id` (the current one only when it is the last one).
    func removeProviderKey(id: KeyID) throws(KeyDirectoryError)

    /// Registers a device by its registration; again changes nothing; a revoked one is refused.
    @discardableResult
    func registerDevice(_ registration: DeviceRegistration) throws(KeyDirectoryError) -> RegisteredDevice

    /// Every registered device (revoked ones included), oldest first.
    func registeredDevices() throws(KeyDirectoryError) -> [RegisteredDevice]

    /// The registered device with device key id `id`; ``KeyDirectoryError/itemNotFound`` when absent.
    func registeredDevice(id: KeyID) throws(KeyDirectoryError) -> RegisteredDevice

    /// Revokes the registered device `id`: nothing is sealed to it any more.
    @discardableResult
    func revokeDevice(id: KeyID) throws(KeyDirectoryError) -> RegisteredDevice

    /// Whether epoch `epoch` of `conversation` was created before per-device keys (its K went out
    /// in format-1 bundles), so that it cannot be the root of per-device keys (SPEC §16.9). Only
    /// a SQLite key store can have such epochs; the default is false.
    func isSharedEpoch(conversation: String, epoch: Int64) throws(KeyDirectoryError) -> Bool
}

extension KeyDirectory {
    /// No epoch is shared: a directory that never sealed format-1 bundles.
    public func isSharedEpoch(conversation: String, epoch: Int64) throws(KeyDirectoryError) -> Bool { false }

    /// Whether a per-device seal for `deviceKeyID` is allowed (`RegisteredDevice.Rules.requireSealable(_:registered:directoryHasRegistrations:)`):
    /// never for a revoked device; for an unregistered one only while the directory registers no device.
    public func requireSealable(deviceKeyID: KeyID) throws(KeyDirectoryError) {
        let registered: RegisteredDevice?
        do throws(KeyDirectoryError) {
            registered = try registeredDevice(id: deviceKeyID)
        } catch .itemNotFound {
            registered = nil
        }
        let hasRegistrations = registered != nil ? true : try !registeredDevices().isEmpty
        try RegisteredDevice.Rules.requireSealable(deviceKeyID, registered: registered, directoryHasRegistrations: hasRegistrations)
    }
}

