import PushSealCore

/// The store master key MK (32 bytes) with its HMAC-SHA256 state, keyed once.
///
/// Every value derived from MK — each row's key, the verifier's check value, the duplicate-log
/// and epoch-record keys — is an HKDF-Expand under MK (Docs/KEY-STORE.md §3); starting each one
/// from the kept inner/outer state saves the two SHA-256 compressions of keying HMAC, which is a
/// third of a row key's cost. MK and its state live in memory that is zeroed when the last copy
/// of the key is released. A store or directory instance loads it once and keeps it.
package struct MasterKey: Sendable {
    /// MK itself.
    package let secret: SecretKey
    /// HMAC-SHA256 keyed with MK, wiped when released.
    private let keyed: KeyedHMAC

    /// Wraps MK (32 bytes: ``MasterKeySource`` checks the length) and keys its HMAC state.
    package init(_ secret: SecretKey) {
        self.secret = secret
        keyed = secret.withUnsafeBytes { KeyedHMAC(key: $0) }
    }

    /// Length of MK in bytes.
    package var byteCount: Int { secret.byteCount }

    /// HKDF-Expand(MK, info || salt, 32), from the kept state.
    package func expand(info: [UInt8], salt: UnsafeRawBufferPointer) -> SecretKey {
        let output = SecureBytes(count: 32) { output in
            info.withUnsafeBytes { info in HKDFSHA256.expand(keyed: keyed, infoParts: [info, salt], into: output) }
        }
        return SecretKey(storage: output)
    }
}

extension MasterKey: Equatable {
    /// Constant-time comparison of the key bytes.
    package static func == (lhs: MasterKey, rhs: MasterKey) -> Bool {
        lhs.secret == rhs.secret
    }
}
