/// A key bundle (SPEC §16): one conversation key, for one conversation and epoch, sealed by a
/// provider key to one device key with HPKE mode_auth, DHKEM(X25519, HKDF-SHA256) /
/// HKDF-SHA256 / ChaCha20Poly1305.
///
/// `bundle = B || enc || ct`: the header ``KeyBundleHeader`` (the associated data), the 32-byte
/// ephemeral public key and the 48-byte sealed key. The text form is strict base64url.
public struct KeyBundle: Sendable, Equatable {
    /// enc (32) plus the sealed key (32 + 16-byte tag).
    static let sealedKeyByteCount = 32 + 32 + 16
    /// The longest bundle text: base64url of 147 + 256 bytes.
    public static let maximumTextLength = Base64URL.encodedLength(of: KeyBundleHeader.fixedByteCount + 256 + sealedKeyByteCount)
    /// The HPKE info: "pushseal v1 key bundle".
    static let info: [UInt8] = Array("pushseal v1 key bundle".utf8)
    static let deviceKeyIDInfo: [UInt8] = Array("pushseal v1 device key id".utf8)
    static let providerKeyIDInfo: [UInt8] = Array("pushseal v1 provider key id".utf8)

    /// The parsed header.
    public let header: KeyBundleHeader
    /// The bundle's bytes.
    public let bytes: [UInt8]
    private let headerByteCount: Int

    /// The bundle's text form (base64url without padding), as sent in `pushseal-bundle`.
    public var text: String { Base64URL.encode(bytes) }

    /// Parses decoded bundle bytes: version, header and exact length (SPEC §16.5 steps 2–3).
    public init(bytes: [UInt8]) throws(KeyBundleError) {
        (header, headerByteCount) = try KeyBundleHeader.parse(bundle: bytes)
        self.bytes = bytes
    }

    /// Parses the text form (SPEC §16.5 steps 1–3): strict base64url, at most
    /// ``maximumTextLength`` characters, then ``init(bytes:)``.
    public init(text: some StringProtocol) throws(KeyBundleError) {
        guard text.utf8.count <= Self.maximumTextLength else {
            throw .malformedBundle("\(text.utf8.count) characters, more than \(Self.maximumTextLength)")
        }
        let decoded: [UInt8]
        do { decoded = try Base64URL.decode(text) } catch { throw .malformedBundle("not strict base64url: \(error)") }
        try self.init(bytes: decoded)
    }

    /// device key id = HKDF-Expand(prk = the device public key, "pushseal v1 device key id", 16).
    public static func deviceKeyID(of publicKey: [UInt8]) -> KeyID { identifier(of: publicKey, info: deviceKeyIDInfo) }

    /// provider key id = HKDF-Expand(prk = the provider public key, "pushseal v1 provider key id", 16).
    public static func providerKeyID(of publicKey: [UInt8]) -> KeyID { identifier(of: publicKey, info: providerKeyIDInfo) }

    private static func identifier(of publicKey: [UInt8], info: [UInt8]) -> KeyID {
        let okm = try! HKDFSHA256.expand(pseudoRandomKey: SecretKey(bytes: publicKey), info: info, outputByteCount: KeyID.byteCount)
        return okm.withUnsafeBytes { KeyID(exactly: $0)! }
    }

    // MARK: - Sealing (provider)

    /// Seals `key` for `conversation` and `epoch` (valid until `notAfter`, nil for no limit) from
    /// `provider` to the device whose public key is `devicePublicKey`.
    public static func seal(
        _ key: ConversationKey, conversation: String, epoch: Int64, notAfter: Int64?,
        provider: IdentityKeyPair, devicePublicKey: [UInt8]
    ) throws(KeyBundleSealingError) -> KeyBundle {
        try seal(key, conversation: conversation, epoch: epoch, notAfter: notAfter, provider: provider, devicePublicKey: devicePublicKey, ephemeral: nil).bundle
    }

    /// ``seal(_:conversation:epoch:notAfter:provider:devicePublicKey:)`` with a given ephemeral key
    /// pair (test vectors only) and the HPKE context (for the vectors' intermediates).
    package static func seal(
        _ key: ConversationKey, conversation: String, epoch: Int64, notAfter: Int64?,
        provider: IdentityKeyPair, devicePublicKey: [UInt8], ephemeral: HybridPublicKeyEncryption.KeyPair?
    ) throws(KeyBundleSealingError) -> (bundle: KeyBundle, context: HybridPublicKeyEncryption.Context) {
        let header = try KeyBundleHeader(
            providerKeyID: provider.providerKeyID, deviceKeyID: deviceKeyID(of: devicePublicKey), epoch: epoch,
            notAfter: notAfter, keyID: key.id, conversation: conversation)
        return try seal(key, header: header, sender: provider, devicePublicKey: devicePublicKey, ephemeral: ephemeral)
    }

    /// Seals `key` under any `header` from any `sender`: the one sealing path, also used by the
    /// vectors to build bundles a correct provider never makes (a forged provider key id, a
    /// header kid that is not the key's).
    package static func seal(
        _ key: ConversationKey, header: KeyBundleHeader, sender: IdentityKeyPair, devicePublicKey: [UInt8],
        ephemeral: HybridPublicKeyEncryption.KeyPair?
    ) throws(KeyBundleSealingError) -> (bundle: KeyBundle, context: HybridPublicKeyEncryption.Context) {
        guard devicePublicKey.count == IdentityKeyPair.byteCount else {
            throw .invalidDevicePublicKey("must be \(IdentityKeyPair.byteCount) bytes, is \(devicePublicKey.count)")
        }
        let aad = header.encoded()
        let (enc, context): ([UInt8], HybridPublicKeyEncryption.Context)
        do {
            (enc, context) = try HybridPublicKeyEncryption.setupSender(
                recipientPublicKey: devicePublicKey, sender: sender.pair, info: info, ephemeral: ephemeral)
        } catch {
            throw .invalidDevicePublicKey("\(error)")
        }
        var plaintext = key.withUnsafeBytes { Array($0) }
        defer { plaintext.withUnsafeMutableBytes { SecureMemory.wipe($0) } }
        let ct = try! context.seal(plaintext, authenticating: aad)
        let bundle = try! KeyBundle(bytes: aad + enc + ct)
        return (bundle, context)
    }

    // MARK: - Opening (device)

    /// Checks and opens the bundle on the device (SPEC §16.5 steps 4–8): sealed to `device`, by a
    /// key in `pinnedProviderKeys` (public keys), authentic, carrying the key the header names,
    /// not expired at `now`. The conflict check and installation (steps 9–10) are the store's.
    public func open(device: IdentityKeyPair, pinnedProviderKeys: [[UInt8]], now: Int64) throws(KeyBundleError) -> ConversationKey {
        try openWithContext(device: device, pinnedProviderKeys: pinnedProviderKeys, now: now).key
    }

    /// ``open(device:pinnedProviderKeys:now:)`` that also returns the HPKE context (vectors).
    package func openWithContext(
        device: IdentityKeyPair, pinnedProviderKeys: [[UInt8]], now: Int64
    ) throws(KeyBundleError) -> (key: ConversationKey, context: HybridPublicKeyEncryption.Context) {
        guard header.deviceKeyID == device.deviceKeyID else { throw .wrongDevice(header.deviceKeyID) }
        guard let provider = pinnedProviderKeys.first(where: { Self.providerKeyID(of: $0) == header.providerKeyID }) else {
            throw .unknownProvider(header.providerKeyID)
        }
        let aad = Array(bytes[..<headerByteCount])
        let enc = Array(bytes[headerByteCount..<(headerByteCount + 32)])
        let ct = Array(bytes[(headerByteCount + 32)...])
        let context: HybridPublicKeyEncryption.Context
        var opened: [UInt8]
        do {
            context = try HybridPublicKeyEncryption.setupRecipient(enc: enc, recipient: device.pair, senderPublicKey: provider, info: Self.info)
            opened = try context.open(ct, authenticating: aad)
        } catch {
            throw .bundleAuthenticationFailed
        }
        defer { opened.withUnsafeMutableBytes { SecureMemory.wipe($0) } }
        let key = try! ConversationKey(rawBytes: opened)
        guard key.id == header.keyID else { throw .kidMismatch }
        if let notAfter = header.notAfter, now > notAfter { throw .bundleExpired(notAfter: notAfter, now: now) }
        return (key, context)
    }

    // MARK: - Installation rule (SPEC §16.5 steps 9–10)

    /// What installing an opened bundle does, given what the device store already holds: the
    /// conversation and epoch of a stored key with the header's kid (if any), and the kid of a
    /// stored key for the header's conversation and epoch (if any). The store calls this inside
    /// the transaction that then installs; the vectors call it with their store contents.
    package static func installation(
        of header: KeyBundleHeader, storedUnderKeyID: (conversation: String, epoch: Int64)?, storedForEpoch: KeyID?
    ) throws(KeyBundleError) -> KeyBundleInstallation {
        if let stored = storedUnderKeyID {
            guard Array(stored.conversation.utf8) == Array(header.conversation.utf8), stored.epoch == header.epoch else {
                throw .conflictingKey("this key is already stored for another conversation or epoch (epoch \(stored.epoch))")
            }
            return .alreadyInstalled
        }
        if storedForEpoch != nil {
            throw .conflictingKey("a different key is already stored for epoch \(header.epoch) of this conversation")
        }
        return .installed
    }
}

/// The result of installing a valid key bundle (idempotent).
public enum KeyBundleInstallation: String, Sendable, Equatable, Codable {
    /// The key was added to the device store.
    case installed = "installed"
    /// The same key was already stored for this conversation and epoch; nothing changed.
    case alreadyInstalled = "already_installed"
}
