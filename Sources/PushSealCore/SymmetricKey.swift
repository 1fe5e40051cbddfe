/// A secret key of any length, held in memory that is zeroed when released.
///
/// The bytes are reachable only inside ``withUnsafeBytes(_:)``; two keys compare in constant time.
public struct SymmetricKey: Sendable {
    package let storage: SecureBytes

    /// Copies `bytes` into a new key. The caller should zero its own copy when done.
    public init(bytes: some Sequence<UInt8>) {
        let array = Array(bytes)
        storage = array.withUnsafeBytes { SecureBytes(copying: $0) }
    }

    /// Wraps existing secure storage.
    package init(storage: SecureBytes) {
        self.storage = storage
    }

    /// A new key of `byteCount` bytes from libsodium's CSPRNG.
    public static func random(byteCount: Int = 32) -> SymmetricKey {
        SymmetricKey(storage: SecureBytes(count: byteCount) { Sodium.randomBytes($0) })
    }

    /// Length of the key in bytes.
    public var byteCount: Int { storage.count }

    /// Gives `body` read access to the key bytes; the pointer must not escape the closure.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage.withUnsafeBytes(body)
    }
}

extension SymmetricKey: Equatable {
    /// Constant-time comparison (`sodium_memcmp`); keys of different lengths are unequal.
    public static func == (lhs: SymmetricKey, rhs: SymmetricKey) -> Bool {
        lhs.withUnsafeBytes { l in rhs.withUnsafeBytes { r in Sodium.constantTimeEqual(l, r) } }
    }
}
