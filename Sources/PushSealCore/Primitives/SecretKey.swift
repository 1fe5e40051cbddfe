/// A secret key of any length, held in ``SecureBytes``: zeroed when the last copy is released.
///
/// The bytes are reachable only inside ``withUnsafeBytes(_:)``; two keys compare in constant time.
/// Package-internal: the public API takes conversation keys (``ConversationKey``) and master
/// keys as bytes, so no name here can clash with CryptoKit's `SymmetricKey`.
package struct SecretKey: Sendable {
    package let storage: SecureBytes

    /// Copies `bytes` into a new key. A temporary copy made here is wiped; the caller should
    /// zero its own copy when done.
    package init(bytes: some Sequence<UInt8>) {
        if let copied = bytes.withContiguousStorageIfAvailable({ SecureBytes(copying: UnsafeRawBufferPointer($0)) }) {
            storage = copied
            return
        }
        var array = Array(bytes)
        defer { array.withUnsafeMutableBytes { SecureMemory.wipe($0) } }
        storage = array.withUnsafeBytes { SecureBytes(copying: $0) }
    }

    /// Wraps existing secure storage.
    package init(storage: SecureBytes) {
        self.storage = storage
    }

    /// A new key of `byteCount` bytes from the system CSPRNG, hedged against a replayed
    /// generator (``HedgedRandom``).
    package static func random(byteCount: Int = 32) -> SecretKey {
        SecretKey(storage: SecureBytes(count: byteCount) { HedgedRandom.fill($0, label: "secret key") })
    }

    /// Length of the key in bytes.
    package var byteCount: Int { storage.count }

    /// Gives `body` read access to the key bytes; the pointer must not escape the closure.
    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage.withUnsafeBytes(body)
    }
}

extension SecretKey: Equatable {
    /// Constant-time comparison; keys of different lengths are unequal.
    package static func == (lhs: SecretKey, rhs: SecretKey) -> Bool {
        lhs.withUnsafeBytes { l in rhs.withUnsafeBytes { r in SecureMemory.constantTimeEqual(l, r) } }
    }
}
