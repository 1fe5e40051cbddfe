public import PushSealCore
public import PushSealKeyDirectory

/// Provider key pairs and device registrations on PostgreSQL (schema version 3,
/// Docs/KEY-STORE.md §3.6, §3.7): the SQLite store's rows, sealed and row-bound by the same
/// `IdentitySealing`, and the same rules (`ProviderKeyRules`, `RegisteredDevice.Rules`).
/// Every write takes the identities' advisory lock, so concurrent creations, promotions and
/// removals on many nodes are serialized.
extension PostgreSQLKeyDirectory {
    /// The advisory lock key of identity writes ("PSID").
    static let identityLock: Int64 = 0x5053_4944

    // MARK: - Provider key pairs

    /// Creates a provider key pair; the first one is current at once, a later one once promoted
    /// (``promoteProviderKey(id:)``). See `KeyDirectory.createProviderKey()`.
    @discardableResult
    public func createProviderKey() throws(KeyDirectoryError) -> ProviderKeyInfo {
        try rules.createProviderKey()
    }

    /// Every provider key pair's public facts, oldest first; each row authenticated.
    public func providerKeys() throws(KeyDirectoryError) -> [ProviderKeyInfo] {
        try rules.providerKeys()
    }

    /// The provider key pair `id`, or the current (recorded) one when `id` is nil; never an older
    /// key pair in place of a missing current one (`KeyDirectoryError.providerKeyMissing(_:)`).
    public func providerKey(id: KeyID? = nil) throws(KeyDirectoryError) -> IdentityKeyPair {
        try rules.providerKey(id: id)
    }

    /// Makes the provider key pair `id` the current one; `KeyDirectoryError.itemNotFound` when absent.
    public func promoteProviderKey(id: KeyID) throws(KeyDirectoryError) {
        try rules.promoteProviderKey(id: id)
    }

    /// Removes the provider key pair `id`: the current one only when it is the last one.
    public func removeProviderKey(id: KeyID) throws(KeyDirectoryError) {
        try rules.removeProviderKey(id: id)
    }

    // MARK: - Device registrations

    /// Registers the device of `registration`; again changes nothing; a revoked one is refused.
    @discardableResult
    public func registerDevice(_ registration: DeviceRegistration) throws(KeyDirectoryError) -> RegisteredDevice {
        try rules.registerDevice(registration)
    }

    /// Every registered device (revoked ones included), oldest first; each row authenticated.
    public func registeredDevices() throws(KeyDirectoryError) -> [RegisteredDevice] {
        try rules.registeredDevices()
    }

    /// The registered device `id`; `KeyDirectoryError.itemNotFound` when absent.
    public func registeredDevice(id: KeyID) throws(KeyDirectoryError) -> RegisteredDevice {
        try rules.registeredDevice(id: id)
    }

    /// Revokes the registered device `id` (a revoked one keeps its time); `KeyDirectoryError.itemNotFound` when absent.
    @discardableResult
    public func revokeDevice(id: KeyID) throws(KeyDirectoryError) -> RegisteredDevice {
        try rules.revokeDevice(id: id)
    }
}
