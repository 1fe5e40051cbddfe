import PushSealCore

/// A provider key pair's public facts (the private half stays sealed in the store).
public struct ProviderKeyInfo: Sendable, Equatable {
    /// The provider key id (SPEC §16.1).
    public let id: KeyID
    /// The 32-byte X25519 public key, which devices pin.
    public let publicKey: [UInt8]
    /// When it was created, in seconds since 1970.
    public let createdAt: Int64

    /// A provider key pair's facts (as a backend reads them back).
    package init(id: KeyID, publicKey: [UInt8], createdAt: Int64) {
        (self.id, self.publicKey, self.createdAt) = (id, publicKey, createdAt)
    }
}

/// The provider-key record (Docs/KEY-STORE.md §3.6): which provider key pair is the current one,
/// authenticated under the epoch-record key, on both backends (a `meta` / `pushseal_meta` row named
/// `provider_key`): `value = kid(16) || HMAC-SHA256(rk, 0x03 || kid(16))`.
///
/// The rules of the current provider key, written once for both backends: a new key pair is
/// current at once only when the directory has none (the first one); any later one waits for
/// an explicit promotion (``KeyDirectory/promoteProviderKey(id:)``), so that devices can pin
/// it before bundles use it.
package enum ProviderKeyRules {
    /// The key to record after creating `created`: itself when there is no provider key yet,
    /// nil (no change) otherwise. ``KeyDirectoryError/providerKeyMissing(_:)`` when the record is
    /// missing (or does not verify) while key pairs exist: that is not papered over.
    package static func recordAfterCreate(_ created: KeyID, recorded: KeyID?, existingRows: Int) throws(KeyDirectoryError) -> KeyID? {
        guard recorded == nil else { return nil }
        if existingRows > 0 { throw .providerKeyMissing(nil) }
        return created
    }

    /// Before removing `id`: the current key pair cannot go while others remain (promote
    /// another one first: falling back to a key devices may not have pinned is no rule). Returns
    /// whether the record goes too (the last key pair, the current one).
    package static func removal(of id: KeyID, recorded: KeyID?, rowCount: Int) throws(KeyDirectoryError) -> Bool {
        guard recorded == id else { return false }
        if rowCount > 1 {
            throw .invalidArgument("provider key \(id) is the current one: promote another provider key first, then remove it")
        }
        return true
    }

    /// The record's value: `kid(16) || HMAC-SHA256(rk, 0x03 || kid(16))`.
    package static func recordValue(_ kid: KeyID, recordKey: SecretKey) -> [UInt8] {
        kid.bytes + recordTag(kid.bytes, recordKey: recordKey)
    }

    /// The recorded key id from a record value, checked; ``KeyDirectoryError/providerKeyMissing(_:)``
    /// (nil) when it does not verify.
    package static func recorded(_ value: [UInt8], recordKey: SecretKey) throws(KeyDirectoryError) -> KeyID {
        let kid = Array(value.prefix(KeyID.byteCount)), tag = Array(value.dropFirst(KeyID.byteCount))
        let expected = recordTag(kid, recordKey: recordKey)
        guard kid.count == KeyID.byteCount, tag.count == expected.count,
              expected.withUnsafeBytes({ e in tag.withUnsafeBytes { t in SecureMemory.constantTimeEqual(e, t) } }),
              let id = KeyID(bytes: kid)
        else { throw .providerKeyMissing(nil) }
        return id
    }

    /// The meta row that holds the record (`name`).
    package static let recordName = "provider_key"
    static let recordFormat: UInt8 = 0x03

    static func recordTag(_ kid: [UInt8], recordKey: SecretKey) -> [UInt8] {
        HMACSHA256.authenticationCode(for: [recordFormat] + kid, using: recordKey)
    }
}
