/// A conversation key K: 32 uniformly random bytes shared by the sender and the receivers of one
/// conversation (one epoch of it).
///
/// K serves directly as the HKDF pseudorandom key (RFC 5869 §3.3), so a key imported from
/// elsewhere must itself be 32 uniformly random bytes or the output of a KDF — never a password.
/// The HMAC inner/outer state of K is computed once here and reused for every derivation; both K
/// and that state live in memory that is zeroed when the key is released.
public struct ConversationKey: Sendable {
    /// Length of K in bytes.
    public static let byteCount = 32

    static let keyIDInfo: [UInt8] = Array("pushseal v1 key id".utf8)
    static let messageKeyInfo: [UInt8] = Array("pushseal v1 message key".utf8)
    static let threadIDInfo: [UInt8] = Array("pushseal v1 thread id".utf8)
    /// The prefix of the device key derivation's info (SPEC §4.4); the device key id follows it.
    package static let deviceKeyInfo: [UInt8] = Array("pushseal v1 device conversation key".utf8)

    /// Everything the key holds, behind one reference: a key is passed and copied on every seal
    /// and open, and one reference costs one retain/release pair instead of four.
    private final class Storage: @unchecked Sendable {
        let material: SecretKey
        /// HMAC-SHA256 keyed with K, wiped when released.
        let keyed: KeyedHMAC
        let id: KeyID
        /// Guards `threadID`, the only state written after `init`.
        private let lock = Lock()
        private var threadID: [UInt8]?

        init(material: SecretKey, keyed: KeyedHMAC, id: KeyID, threadID: [UInt8]?) {
            self.material = material
            self.keyed = keyed
            self.id = id
            self.threadID = threadID
        }

        /// tid, derived on first use and kept: a receiver never needs it, the provider needs it
        /// for every APNs payload (an HMAC costs far more than the rest of the payload framing).
        var opaqueThreadIDBytes: [UInt8] {
            lock.withLock {
                if let threadID { return threadID }
                var bytes = [UInt8](repeating: 0, count: 16)
                ConversationKey.threadIDInfo.withUnsafeBytes { info in
                    bytes.withUnsafeMutableBytes { HKDFSHA256.expand(keyed: keyed, infoParts: [info], into: $0) }
                }
                threadID = bytes
                return bytes
            }
        }
    }

    private let storage: Storage

    private var material: SecretKey { storage.material }

    /// The key's identifier (not secret).
    public var id: KeyID { storage.id }
    /// tid = HKDF-Expand(K, "pushseal v1 thread id", 16) (not secret; sent to Apple as the
    /// outer `thread-id`). Derived on first use and kept with the key.
    package var opaqueThreadIDBytes: [UInt8] { storage.opaqueThreadIDBytes }

    /// Wraps existing key bytes; they must be exactly 32 uniformly random bytes. Derives the key id.
    package init(_ key: SecretKey) throws(WireFormatError) {
        try self.init(key, id: nil)
    }

    /// Wraps key bytes whose key id was authenticated together with them, so it need not be
    /// derived again: only a key store row opened under its master key qualifies, whose AEAD
    /// binds the row's kid and the sealer checked that kid is this key's (Docs/KEY-STORE.md §3).
    /// Every other key derives its id (``init(_:)``).
    package init(_ key: SecretKey, authenticatedID id: KeyID) throws(WireFormatError) {
        try self.init(key, id: id)
    }

    private init(_ key: SecretKey, id knownID: KeyID?) throws(WireFormatError) {
        guard key.byteCount == Self.byteCount else {
            throw .incorrectKeySize(expected: Self.byteCount, actual: key.byteCount)
        }
        let keyed = key.withUnsafeBytes { KeyedHMAC(key: $0) }
        let id: KeyID
        if let knownID {
            id = knownID
        } else {
            var idBytes = [UInt8](repeating: 0, count: KeyID.byteCount)
            Self.keyIDInfo.withUnsafeBytes { info in
                idBytes.withUnsafeMutableBytes { HKDFSHA256.expand(keyed: keyed, infoParts: [info], into: $0) }
            }
            id = KeyID(bytes: idBytes)!
        }
        storage = Storage(material: key, keyed: keyed, id: id, threadID: nil)
    }

    /// A copy that shares no memory with this key: K and the HMAC state in new secure storage.
    /// Threads that each seal with a private copy touch no shared reference count; with one
    /// shared key, every retain and release would move the same cache line between cores.
    package func privateCopy() -> ConversationKey {
        ConversationKey(storage: Storage(
            material: material.withUnsafeBytes { SecretKey(storage: SecureBytes(copying: $0)) },
            keyed: storage.keyed.privateCopy(),
            id: id,
            threadID: opaqueThreadIDBytes.withUnsafeBufferPointer { Array($0) }))
    }

    /// Identifies this key's storage: equal for a key and its copies, different for a
    /// ``privateCopy()``.
    package var storageIdentity: ObjectIdentifier { ObjectIdentifier(storage) }

    private init(storage: Storage) {
        self.storage = storage
    }

    /// Copies raw key bytes (for example decoded from base64url); they must be exactly 32 bytes.
    public init(rawBytes: some Sequence<UInt8>) throws(WireFormatError) {
        try self.init(SecretKey(bytes: rawBytes))
    }

    /// A fresh key from the system CSPRNG.
    public static func generate() -> ConversationKey {
        try! ConversationKey(SecretKey.random(byteCount: byteCount))
    }

    /// Gives `body` read access to K; the pointer must not escape the closure.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try material.withUnsafeBytes(body)
    }

    /// K as a ``SecretKey`` (shares the same zeroing storage).
    package var secretKey: SecretKey { material }

    /// The opaque APNs `thread-id`: base64url(HKDF-Expand(K, "pushseal v1 thread id", 16)).
    public var opaqueThreadID: String {
        Base64URL.encode(opaqueThreadIDBytes)
    }

    /// The key of one device (SPEC §4.4): K_d = HKDF-Expand(K, "pushseal v1 device conversation key"
    /// || deviceKeyID, 32) = HMAC-SHA256(K, info || 0x01), from the cached HMAC state.
    ///
    /// K_d is a PRF output under K, so it is itself a uniform 32-byte key: its kid, message keys and
    /// thread-id are derived from it exactly as from any conversation key, and the receiver needs
    /// nothing new (a device's key *is* K_d). Holding K_d reveals neither K nor the key of any other
    /// device, and the kids and thread-ids of two devices are unrelated. The 51-byte info has a
    /// length and prefix no other derivation of the spec uses (domain separation).
    public func deviceKey(for deviceKeyID: KeyID) -> ConversationKey {
        let material = SecureBytes(count: Self.byteCount) { output in
            Self.deviceKeyInfo.withUnsafeBytes { info in
                deviceKeyID.withUnsafeBytes { id in expand(infoParts: [info, id], into: output) }
            }
        }
        return try! ConversationKey(SecretKey(storage: material))
    }

    /// HKDF-Expand(K, concatenated info parts, output.count) from the cached HMAC state.
    @inline(__always)
    package func expand(infoParts: [UnsafeRawBufferPointer], into output: UnsafeMutableRawBufferPointer) {
        HKDFSHA256.expand(keyed: storage.keyed, infoParts: infoParts, into: output)
    }

    /// mk = HKDF-Expand(K, "pushseal v1 message key" || salt, 32) written to `output` (32 bytes):
    /// a single HMAC block, T(1) = HMAC(K, info || salt || 0x01), from the cached state (the
    /// running copy is wiped by `finalize`).
    @inline(__always)
    package func deriveMessageKey(salt: UnsafeRawBufferPointer, into output: UnsafeMutablePointer<UInt8>) {
        var state = storage.keyed.start()
        Self.messageKeyInfo.withUnsafeBytes { state.update($0) }
        state.update(salt)
        state.update(byte: 1)
        state.finalize(into: output)
    }
}

extension ConversationKey: Equatable {
    /// Constant-time comparison of the key bytes.
    public static func == (lhs: ConversationKey, rhs: ConversationKey) -> Bool {
        lhs.material == rhs.material
    }
}
