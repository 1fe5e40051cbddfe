/// A key bundle (SPEC §16): one conversation key, for one conversation and epoch, sealed by a
/// provider key to one device key with HPKE mode_auth, DHKEM(X25519, HKDF-SHA256) /
/// HKDF-SHA256 / ChaCha20Poly1305.
///
/// `bundle = B || enc || ct`: the 65-byte header ``KeyBundleHeader`` (the associated data), the
/// 32-byte ephemeral public key, and the sealed `K || cid` (32 + n + 16 bytes). The conversation
/// id is sealed, so a push service that carries the bundle does not learn it. The text form is
/// strict base64url.
public struct KeyBundle: Sendable, Equatable {
    /// Bytes besides the header and the conversation id: enc (32), K (32), the tag (16).
    static let overheadByteCount = 32 + 32 + 16
    /// The longest bundle text: base64url of 145 + 256 bytes.
    public static let maximumTextLength = Base64URL.encodedLength(
        of: KeyBundleHeader.byteCount + overheadByteCount + NotificationContent.maximumIdentifierByteCount)
    /// The HPKE info: "pushseal v1 key bundle".
    static let info: [UInt8] = Array("pushseal v1 key bundle".utf8)
    static let deviceKeyIDInfo: [UInt8] = Array("pushseal v1 device key id".utf8)
    static let providerKeyIDInfo: [UInt8] = Array("pushseal v1 provider key id".utf8)

    /// The parsed header.
    public let header: KeyBundleHeader
    /// The bundle's bytes.
    public let bytes: [UInt8]

    /// The bundle's text form (base64url without padding), as sent in `pushseal-bundle`.
    public var text: String { Base64URL.encode(bytes) }

    /// Parses decoded bundle bytes: version, length and header ranges (SPEC §16.5 steps 2–3).
    public init(bytes: [UInt8]) throws(KeyBundleError) {
        header = try KeyBundleHeader.parse(bundle: bytes).header
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
        let count = conversation.utf8.count
        guard count >= 1, count <= NotificationContent.maximumIdentifierByteCount else {
            throw .invalidField("conversation must be 1 to \(NotificationContent.maximumIdentifierByteCount) UTF-8 bytes, is \(count)")
        }
        let header = try KeyBundleHeader(
            providerKeyID: provider.providerKeyID, deviceKeyID: deviceKeyID(of: devicePublicKey), epoch: epoch,
            notAfter: notAfter, keyID: key.id)
        return try seal(key, header: header, conversationBytes: Array(conversation.utf8), sender: provider,
                        devicePublicKey: devicePublicKey, ephemeral: ephemeral)
    }

    /// Seals `K || conversationBytes` under any `header` from any `sender`: the one sealing path,
    /// also used by the vectors to build bundles a correct provider never makes (a forged provider
    /// key id, a header kid that is not the key's, a conversation id that is not UTF-8).
    package static func seal(
        _ key: ConversationKey, header: KeyBundleHeader, conversationBytes: [UInt8], sender: IdentityKeyPair, devicePublicKey: [UInt8],
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
        var plaintext = key.withUnsafeBytes { Array($0) } + conversationBytes
        defer { plaintext.withUnsafeMutableBytes { SecureMemory.wipe($0) } }
        let ct = try! context.seal(plaintext, authenticating: aad)
        guard let bundle = try? KeyBundle(bytes: aad + enc + ct) else {
            throw .invalidField("the conversation id must be 1 to \(NotificationContent.maximumIdentifierByteCount) bytes")
        }
        return (bundle, context)
    }

    // MARK: - Opening (device)

    /// What a device opened: the key and the conversation it belongs to.
    public struct Opened: Sendable {
        /// The conversation key K.
        public let key: ConversationKey
        /// The conversation id sealed with it.
        public let conversation: String
    }

    /// Checks and opens the bundle on the device (SPEC §16.5 steps 4–9): sealed to `device`, by a
    /// key in `pinnedProviderKeys` (public keys), authentic, a UTF-8 conversation id, carrying the
    /// key the header names, not expired at `now`. The conflict check and installation
    /// (steps 10–11) are the store's.
    public func open(device: IdentityKeyPair, pinnedProviderKeys: [[UInt8]], now: Int64) throws(KeyBundleError) -> Opened {
        try openWithContext(device: device, pinnedProviderKeys: pinnedProviderKeys, now: now).opened
    }

    /// ``open(device:pinnedProviderKeys:now:)`` that also returns the HPKE context (vectors),
    /// also when a step after HPKE fails (then in `failure`).
    package func openWithContext(
        device: IdentityKeyPair, pinnedProviderKeys: [[UInt8]], now: Int64
    ) throws(KeyBundleError) -> (opened: Opened, context: HybridPublicKeyEncryption.Context) {
        let (context, result) = try openSteps(device: device, pinnedProviderKeys: pinnedProviderKeys, now: now)
        return (try result.get(), context)
    }

    /// Steps 4–6 throw; the result of steps 7–9 comes with the HPKE context that opened the bundle.
    package func openSteps(
        device: IdentityKeyPair, pinnedProviderKeys: [[UInt8]], now: Int64
    ) throws(KeyBundleError) -> (context: HybridPublicKeyEncryption.Context, result: Result<Opened, KeyBundleError>) {
        guard header.deviceKeyID == device.deviceKeyID else { throw .wrongDevice(header.deviceKeyID) }
        guard let provider = pinnedProviderKeys.first(where: { Self.providerKeyID(of: $0) == header.providerKeyID }) else {
            throw .unknownProvider(header.providerKeyID)
        }
        let headerCount = KeyBundleHeader.byteCount
        let aad = Array(bytes[..<headerCount])
        let enc = Array(bytes[headerCount..<(headerCount + 32)])
        let ct = Array(bytes[(headerCount + 32)...])
        let context: HybridPublicKeyEncryption.Context
        var opened: [UInt8]
        do {
            context = try HybridPublicKeyEncryption.setupRecipient(enc: enc, recipient: device.pair, senderPublicKey: provider, info: Self.info)
            opened = try context.open(ct, authenticating: aad)
        } catch {
            throw .bundleAuthenticationFailed
        }
        defer { opened.withUnsafeMutableBytes { SecureMemory.wipe($0) } }
        let cid = opened[ConversationKey.byteCount...]
        let conversation = String(decoding: cid, as: UTF8.self)
        guard conversation.utf8.elementsEqual(cid) else {
            return (context, .failure(.malformedBundle("the sealed conversation id is not valid UTF-8")))
        }
        let key = try! ConversationKey(rawBytes: opened[..<ConversationKey.byteCount])
        guard key.id == header.keyID else { return (context, .failure(.kidMismatch)) }
        if let notAfter = header.notAfter, now > notAfter { return (context, .failure(.bundleExpired(notAfter: notAfter, now: now))) }
        return (context, .success(Opened(key: key, conversation: conversation)))
    }

    // MARK: - Installation rule (SPEC §16.5 steps 10–11)

    /// What installing an opened bundle does, given what the device store already holds: the
    /// conversation and epoch of a stored key with the header's kid (if any), and the kid of a
    /// stored key for the opened conversation and the header's epoch (if any). The store calls
    /// this inside the transaction that then installs; the vectors call it with their store contents.
    package static func installation(
        of header: KeyBundleHeader, conversation: String, storedUnderKeyID: (conversation: String, epoch: Int64)?, storedForEpoch: KeyID?
    ) throws(KeyBundleError) -> KeyBundleInstallation {
        if let stored = storedUnderKeyID {
            guard stored.conversation.utf8.elementsEqual(conversation.utf8), stored.epoch == header.epoch else {
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
