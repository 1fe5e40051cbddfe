import PushSealCore
import PushSealKeyDirectory

/// Device registrations in a key directory on SQLite (file format 8, table `devices`,
/// Docs/KEY-STORE.md §3.7): the rules are `RegisteredDevice.Rules`, shared with PostgreSQL.
extension KeyStore {
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
