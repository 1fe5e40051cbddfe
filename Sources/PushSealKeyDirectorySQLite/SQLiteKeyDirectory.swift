public import PushSealCore
public import PushSealKeyDirectory
public import PushSealKeyStore

/// The provider's key directory on SQLite: conversation keys, provider key pairs and device
/// registrations in one store file on one host (Docs/KEY-STORE.md), under the rules every key
/// directory shares (module PushSealKeyDirectory). `PostgreSQLKeyDirectory` is the same
/// directory on a server shared by many nodes.
///
/// It uses the same file format as the device's `DeviceKeyStore` — a store directory may play
/// both roles (the demo and the CLI do) — and the same kept connection: ``store`` is the file it
/// opened. A receiver links only the device store; the directory's write paths (rotation,
/// provider key pairs, registrations, the current key for sealing) are in this module.
public final class SQLiteKeyDirectory: KeyDirectory, Sendable {
    /// The store file (its kept connection, master key and clock).
    public let store: DeviceKeyStore

    /// Opens the directory at `directory` (file `directory/pushseal-keys.sqlite3`) exactly as
    /// `DeviceKeyStore.init(directory:masterKey:create:clock:)` opens a store: creating it (and,
    /// through the source, the master key) only with `create`.
    public init(
        directory: String, masterKey source: MasterKeySource, create: Bool = false, clock: @escaping SecondsClock = systemClock
    ) throws(KeyDirectoryError) {
        self.store = try DeviceKeyStore(directory: directory, masterKey: source, create: create, clock: clock)
    }

    /// The directory in the store file `store` has open (sharing its connection).
    public init(store: DeviceKeyStore) {
        self.store = store
    }

    /// The store directory.
    public var directory: String { store.directory }
    /// The database file.
    public var path: String { store.path }
    /// Whether opening it initialized the store (see `DeviceKeyStore.createdStore`).
    public var createdStore: Bool { store.createdStore }

    private var rules: KeyDirectoryRules<DeviceKeyStore> { store.rules }

    // MARK: - Conversation keys

    /// Adds `key` as epoch `epoch` of `conversation` — by default the conversation's next epoch,
    /// chosen inside the same write transaction. `KeyDirectoryError.duplicateItem` when the store
    /// already has this key id or this (conversation, epoch).
    @discardableResult
    public func add(
        _ key: ConversationKey, conversation: String, epoch: Int64? = nil, label: String? = nil, notAfter: Int64? = nil
    ) throws(KeyDirectoryError) -> KeyItem {
        try rules.add(key, conversation: conversation, epoch: epoch, label: label, notAfter: notAfter)
    }

    /// The key with id `id`, unsealed and checked; `KeyDirectoryError.itemNotFound` when absent.
    public func key(for id: KeyID) throws(KeyDirectoryError) -> StoredKey {
        try rules.key(for: id)
    }

    /// Metadata of every item (or one conversation's), each row authenticated; never a secret.
    public func items(conversation: String? = nil) throws(KeyDirectoryError) -> [KeyItem] {
        try rules.items(conversation: conversation)
    }

    /// Removes the item with id `keyID`; `KeyDirectoryError.itemNotFound` when absent. Removing a
    /// conversation's newest epoch leaves it without a current key until it is rotated.
    public func remove(keyID: KeyID) throws(KeyDirectoryError) {
        try rules.remove(keyID: keyID)
    }

    /// Removes every epoch of `conversation`, its epoch record and its high-water mark; returns
    /// how many items were removed.
    @discardableResult
    public func removeConversation(_ conversation: String) throws(KeyDirectoryError) -> Int {
        try rules.removeConversation(conversation)
    }

    /// Deletes every item retired more than `gracePeriod` seconds ago; returns how many.
    @discardableResult
    public func purgeExpired(gracePeriod: Int64 = KeyDirectoryLimits.defaultGracePeriod) throws(KeyDirectoryError) -> Int {
        try rules.purgeExpired(gracePeriod: gracePeriod)
    }

    /// Seals every row again under the master key of `newSource` and clears the duplicate log,
    /// in one transaction (see `DeviceKeyStore.rotateMasterKey(to:)`).
    @discardableResult
    public func rotateMasterKey(to newSource: MasterKeySource) throws(KeyDirectoryError) -> MasterKeyRotation {
        try store.rotateMasterKey(to: newSource)
    }

    /// The conversation's current key: its newest epoch, when that is live now (no not-after
    /// time, or not-after not yet passed). `KeyDirectoryError.itemNotFound` when the conversation
    /// has no keys, or its newest epoch is retired or was removed (rotate to continue): never an
    /// older epoch, which a member removed by the rotation may still hold.
    ///
    /// The newest epoch comes from the conversation's authenticated epoch record (file format 3),
    /// not from the rows: a deleted newest row, a rolled-back record or an edited epoch or
    /// not-after time is `KeyDirectoryError.corruptedItem(_:)`; a missing record while rows exist is
    /// `KeyDirectoryError.epochRecordMissing(conversation:)`; a record below the conversation's
    /// high-water mark (its rows and record put back from an older copy, file format 7) is
    /// `KeyDirectoryError.rolledBack(conversation:epoch:highWater:)`, and nothing is served.
    public func currentKey(conversation: String) throws(KeyDirectoryError) -> StoredKey {
        try rules.currentKey(conversation: conversation)
    }

    /// Rotates `conversation`: a fresh random key (or `key`, when given) at epoch max + 1 (1 for a
    /// conversation without keys), and every earlier epoch is retired now, whatever lifetime it
    /// had: its not-after (retire-by) time becomes `min(not-after, now)`. All in one write
    /// transaction, so concurrent rotations get distinct, consecutive epochs.
    ///
    /// A retired key still opens notifications sent up to its retire-by time (plus the receiver's
    /// future-skew allowance) until ``purgeExpired(gracePeriod:)`` deletes it after the grace
    /// period; a notification claiming a later `ts` falls back with `retired_key`, so a member
    /// removed by the rotation cannot forge fresh notifications with the old key (SPEC §10.2).
    ///
    /// Pass `key` to mirror a rotation made elsewhere (a device receiving the provider's new key
    /// retires its earlier epochs the same way); `KeyDirectoryError.duplicateItem` when the store
    /// already holds that key id, and then nothing changes.
    @discardableResult
    public func rotate(conversation: String, label: String? = nil, key supplied: ConversationKey? = nil) throws(KeyDirectoryError) -> StoredKey {
        try rules.rotate(conversation: conversation, label: label, key: supplied)
    }

    /// Whether epoch `epoch` of `conversation` was created before per-device keys (its K went out
    /// in format-1 bundles), so that it cannot be the root of per-device keys (SPEC §16.9).
    public func isSharedEpoch(conversation: String, epoch: Int64) throws(KeyDirectoryError) -> Bool {
        try store.isSharedEpoch(conversation: conversation, epoch: epoch)
    }

    /// Creates a provider key pair. The first one is the current one at once; any later one is
    /// not used for bundles until ``promoteProviderKey(id:)`` makes it current, so devices can pin
    /// it first. Older ones stay until removed, so bundles sealed with them and devices that
    /// pinned them keep working. The current one is recorded (authenticated, file format 6) in
    /// the same transaction.
    @discardableResult
    public func createProviderKey() throws(KeyDirectoryError) -> ProviderKeyInfo {
        try rules.createProviderKey()
    }

    /// Makes the provider key pair `id` the current one: bundles are sealed with it from now on.
    /// `KeyDirectoryError.itemNotFound` when there is none with this id. Promoting the current one
    /// changes nothing.
    public func promoteProviderKey(id: KeyID) throws(KeyDirectoryError) {
        try rules.promoteProviderKey(id: id)
    }

    /// Every provider key pair's public facts, oldest first (the last is the newest).
    public func providerKeys() throws(KeyDirectoryError) -> [ProviderKeyInfo] {
        try rules.providerKeys()
    }

    /// The provider key pair with `id`, or the current one (the recorded newest, file format 6)
    /// when `id` is nil; `KeyDirectoryError.itemNotFound` when there is none.
    /// `KeyDirectoryError.providerKeyMissing(_:)` when the current one's row was deleted outside the
    /// API (or its record was): never an older key pair instead.
    public func providerKey(id: KeyID? = nil) throws(KeyDirectoryError) -> IdentityKeyPair {
        try rules.providerKey(id: id)
    }

    /// Removes the provider key pair with `id`; `KeyDirectoryError.itemNotFound` when absent.
    /// The current one goes only when it is the last one (its record goes with it); while others
    /// remain it is `KeyDirectoryError.invalidArgument(_:)`: promote another one first.
    public func removeProviderKey(id: KeyID) throws(KeyDirectoryError) {
        try rules.removeProviderKey(id: id)
    }

    /// Registers the device of `registration` (the JSON `pushseal device init` prints), so that
    /// bundles and per-device keys can be sealed to it by its device key id. Registering it again
    /// changes nothing and returns the existing row; a revoked device key is
    /// `KeyDirectoryError.invalidArgument(_:)`.
    @discardableResult
    public func registerDevice(_ registration: DeviceRegistration) throws(KeyDirectoryError) -> RegisteredDevice {
        try rules.registerDevice(registration)
    }

    /// Every registered device, revoked ones included, oldest first; each row authenticated.
    public func registeredDevices() throws(KeyDirectoryError) -> [RegisteredDevice] {
        try rules.registeredDevices()
    }

    /// The registered device with device key id `id` (revoked or not); `KeyDirectoryError.itemNotFound` when absent.
    public func registeredDevice(id: KeyID) throws(KeyDirectoryError) -> RegisteredDevice {
        try rules.registeredDevice(id: id)
    }

    /// Revokes the registered device `id`: nothing is sealed to it from now on (its row stays,
    /// so it is not registered again). Returns the revoked row (a device revoked already keeps
    /// its revocation time); `KeyDirectoryError.itemNotFound` when absent.
    @discardableResult
    public func revokeDevice(id: KeyID) throws(KeyDirectoryError) -> RegisteredDevice {
        try rules.revokeDevice(id: id)
    }
}

extension DeviceKeyStore {
    /// The provider's key directory in this store file (sharing its connection): for tools and
    /// tests that use one store directory for both roles.
    package var asDirectory: SQLiteKeyDirectory { SQLiteKeyDirectory(store: self) }
}
