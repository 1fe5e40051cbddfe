import PushSealCore
import PushSealKeyDirectory

/// Master-key rotation: every row sealed again under a new master key in one transaction, so a
/// copy of the store made before (with keys purged since) no longer opens once the old master
/// key is destroyed. Docs/KEY-STORE.md §8 ("A purge is durable only against later copies").
extension DeviceKeyStore {
    /// Seals every key, every identity, every epoch record and the verifier again under the master key of
    /// `newSource` in one write transaction: all or nothing. A row that does not unseal under the
    /// current master key (`corruptedItem`) aborts the rotation and nothing changes. After the
    /// commit the duplicate log (its own file; its tags are keyed by the master key) is reset
    /// under the new key's log id; a reset that did not happen (a crash right after the commit)
    /// is done by the next open under the new key, which finds the old key's id in the log.
    ///
    /// The new key is loaded (and created, for a key file or keychain source that may create)
    /// before the transaction, so a crash leaves either the old store with an unused new key or
    /// the new store with its key. This instance keeps the old key and fails every later call
    /// (`locked`: "re-created with another master key"): open the store again with `newSource`,
    /// then destroy the old master key. `KeyDirectoryError.invalidArgument(_:)` when the new key
    /// equals the current one.
    @discardableResult
    public func rotateMasterKey(to newSource: MasterKeySource) throws(KeyDirectoryError) -> MasterKeyRotation {
        let rotation = try rules.rotateMasterKey(to: newSource, describing: "the store at \(path)")
        let newKey = try newSource.load(mayCreate: false)
        let cleared = try DeliveryLogFile(directory: directory, logKey: ItemSealing.deliveryLogKey(masterKey: newKey)).reset()
        return MasterKeyRotation(resealedKeys: rotation.resealedKeys, resealedIdentities: rotation.resealedIdentities, clearedDeliveries: cleared)
    }
}
