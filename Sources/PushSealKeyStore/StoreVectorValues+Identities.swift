import PushSealCore
import PushSealKeyDirectory

/// The identity rows' at-rest values (Docs/KEY-STORE.md §3.6, §3.7) with caller-chosen salts, for
/// the key-store test vectors, and the store's own reading of such a row. Never for storage: the
/// store draws every salt from the CSPRNG.
extension StoreVectorValues {
    /// An `identities` / `devices` row's associated data and sealed blob under `masterKey` with
    /// `salt`: the private key of `pair` sealed (a device or provider key), or nothing (a tag: a
    /// pinned key or a registered device, `pair` nil).
    package static func sealedIdentity(
        _ binding: IdentitySealing.Binding, pair: IdentityKeyPair?, masterKey: [UInt8], salt: [UInt8]
    ) -> (associatedData: [UInt8], sealed: [UInt8]) {
        (binding.associatedData, IdentitySealing.seal(pair, binding: binding, masterKey: MasterKey(SecretKey(bytes: masterKey)), salt: salt))
    }

    /// The row read back as the store and the directory read it (its id checked against its public
    /// key, the blob authenticated with every column, a private key checked against the public
    /// key): the key pair (nil for a pinned key or a registered device), or the store's
    /// ``KeyDirectoryError/invalidStore(_:)``.
    package static func readIdentity(
        _ binding: IdentitySealing.Binding, sealed: [UInt8], masterKey: [UInt8]
    ) throws(KeyDirectoryError) -> IdentityKeyPair? {
        let masterKey = MasterKey(SecretKey(bytes: masterKey))
        if binding.kind == .registered {
            _ = try RegisteredDevice.Rules.checked(binding, sealed: sealed, masterKey: masterKey)
            return nil
        }
        return try IdentityRow((binding, sealed), masterKey: masterKey).pair
    }

    /// The provider-key record's value for `kid` (the `meta` / `pushseal_meta` row `provider_key`).
    package static func providerKeyRecord(_ kid: KeyID, masterKey: [UInt8]) -> [UInt8] {
        ProviderKeyRules.recordValue(kid, recordKey: ItemSealing.epochRecordKey(masterKey: MasterKey(SecretKey(bytes: masterKey))))
    }

    /// The key id a provider-key record value names, as the directory reads it; nil when the value
    /// does not verify under `masterKey` (the directory's `providerKeyMissing(nil)`).
    package static func recordedProviderKey(_ value: [UInt8], masterKey: [UInt8]) -> KeyID? {
        try? ProviderKeyRules.recorded(value, recordKey: ItemSealing.epochRecordKey(masterKey: MasterKey(SecretKey(bytes: masterKey))))
    }
}
