/// A static X25519 key pair: a device key (bundles are sealed to it) or a provider key (bundles
/// are sealed from it, HPKE mode_auth). The private half is in memory that is zeroed when the
/// last copy is released; it is never printed.
public struct IdentityKeyPair: Sendable {
    /// Length of either half in bytes.
    public static let byteCount = 32

    package let pair: HybridPublicKeyEncryption.KeyPair
    /// This key's id as a device key: ``KeyBundle/deviceKeyID(of:)`` (derived once: every bundle
    /// a device opens compares it).
    public let deviceKeyID: KeyID
    /// This key's id as a provider key: ``KeyBundle/providerKeyID(of:)``.
    public let providerKeyID: KeyID

    /// The 32-byte public key.
    public var publicKey: [UInt8] { pair.publicKey }

    /// A new key pair from the system CSPRNG.
    public static func generate() -> IdentityKeyPair {
        IdentityKeyPair(pair: .generate())
    }

    /// The key pair of existing private key bytes (exactly 32).
    public init(privateKeyBytes: some Sequence<UInt8>) throws(WireFormatError) {
        let key = SecretKey(bytes: privateKeyBytes)
        guard key.byteCount == Self.byteCount else { throw .incorrectKeySize(expected: Self.byteCount, actual: key.byteCount) }
        self.init(pair: try! HybridPublicKeyEncryption.KeyPair(privateKey: key))
    }

    package init(pair: HybridPublicKeyEncryption.KeyPair) {
        self.pair = pair
        deviceKeyID = KeyBundle.deviceKeyID(of: pair.publicKey)
        providerKeyID = KeyBundle.providerKeyID(of: pair.publicKey)
    }

    /// Gives `body` the private key bytes (to seal them at rest); the pointer must not escape.
    public func withUnsafePrivateKeyBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try pair.privateKey.withUnsafeBytes(body)
    }
}
