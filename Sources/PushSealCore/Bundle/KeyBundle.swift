/// A key bundle, format 2 (SPEC §16): one device key K_d — never the conversation key K — for one
/// conversation and epoch, sealed by a provider key to one device key with HPKE mode_auth,
/// DHKEM(X25519, HKDF-SHA256) / HKDF-SHA256 / ChaCha20Poly1305, info "pushseal v1 key bundle 2".
///
/// `bundle = B || enc || ct`: the 17-byte clear header ``KeyBundleHeader`` (version and provider
/// key id, the associated data), the 32-byte ephemeral public key and the sealed 338-byte
/// ``KeyBundleContents`` with its 16-byte tag: 403 bytes, 538 base64url characters, for every
/// bundle. A push service carrying it in band learns the version and the provider key id only.
public struct KeyBundle: Sendable {
    /// Length of every bundle: header, enc, contents, tag.
    public static let byteCount = KeyBundleHeader.byteCount + 32 + KeyBundleContents.byteCount + 16
    /// Length of every bundle's text form.
    public static let textLength = Base64URL.encodedLength(of: byteCount)
    /// The longest text a device decodes at all (SPEC §16.5 step 1); longer is `malformed_bundle`
    /// before any decoding.
    public static let maximumTextLength = 1024
    /// How long a bundle may be installed after it was sealed unless the provider says otherwise: 30 days.
    public static let defaultLifetime: Int64 = 30 * 86_400
    /// The HPKE info of format 2: "pushseal v1 key bundle 2" (format 1 used "pushseal v1 key bundle").
    static let info: [UInt8] = Array("pushseal v1 key bundle 2".utf8)
    static let deviceKeyIDInfo: [UInt8] = Array("pushseal v1 device key id".utf8)
    static let providerKeyIDInfo: [UInt8] = Array("pushseal v1 provider key id".utf8)

    /// The parsed clear header.
    public let header: KeyBundleHeader
    /// The bundle's bytes.
    public let bytes: [UInt8]
    /// The kid of the key inside, when this process sealed the bundle (nil when parsed: the kid
    /// is sealed). The provider checks that an in-band bundle carries the notification's key.
    public let sealedKeyID: KeyID?

    /// The bundle's text form (base64url without padding), as sent in `pushseal-bundle`.
    public var text: String { Base64URL.encode(bytes) }

    /// Parses decoded bundle bytes (SPEC §16.5 steps 2–3): the version, then the length.
    public init(bytes: [UInt8]) throws(KeyBundleError) {
        header = try KeyBundleHeader.parse(bundle: bytes)
        self.bytes = bytes
        sealedKeyID = nil
    }

    private init(sealed bytes: [UInt8], keyID: KeyID?) {
        header = try! KeyBundleHeader.parse(bundle: bytes)
        self.bytes = bytes
        sealedKeyID = keyID
    }

    /// Parses the text form (SPEC §16.5 steps 1–3): at most ``maximumTextLength`` characters of
    /// strict base64url, then ``init(bytes:)``.
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

    /// Seals the key of `device` for epoch `epoch` of `conversation`, derived from the
    /// conversation key `conversationKey` (K, which never leaves the provider): K_d =
    /// ``ConversationKey/deviceKey(for:)``. `since` is when the epoch became current, `retireBy`
    /// its last current second (nil while it is current: a retired epoch can still be delivered
    /// and installs as retired), `expires` the last second the bundle may be installed.
    public static func seal(
        conversationKey: ConversationKey, conversation: String, epoch: Int64, since: Int64, retireBy: Int64?, expires: Int64,
        provider: IdentityKeyPair, device: DeviceRegistration
    ) throws(KeyBundleSealingError) -> KeyBundle {
        let contents = try KeyBundleContents(
            key: conversationKey.deviceKey(for: device.deviceKeyID), conversation: conversation, epoch: epoch, since: since,
            retireBy: retireBy, expires: expires)
        return try seal(contents, provider: provider, devicePublicKey: device.publicKey, ephemeral: nil).bundle
    }

    /// Seals `contents` (whose key is already the device's K_d, e.g. from a per-device cache)
    /// from `provider` to `devicePublicKey`, with a given ephemeral key pair (test vectors only)
    /// or a fresh one; returns the HPKE context too (the vectors' intermediates).
    package static func seal(
        _ contents: KeyBundleContents, provider: IdentityKeyPair, devicePublicKey: [UInt8], ephemeral: HybridPublicKeyEncryption.KeyPair?
    ) throws(KeyBundleSealingError) -> (bundle: KeyBundle, context: HybridPublicKeyEncryption.Context) {
        var plaintext = contents.encoded()
        defer { plaintext.withUnsafeMutableBytes { SecureMemory.wipe($0) } }
        let (bundle, context) = try seal(
            plaintext: plaintext, header: KeyBundleHeader(providerKeyID: provider.providerKeyID), sender: provider,
            devicePublicKey: devicePublicKey, ephemeral: ephemeral)
        return (KeyBundle(sealed: bundle.bytes, keyID: contents.keyID), context)
    }

    /// Seals any 338-byte `plaintext` under any `header` from any `sender`: the one sealing path,
    /// also used by the vectors for bundles a correct provider never makes (a forged provider key
    /// id, out-of-range fields, a kid that is not the key's).
    package static func seal(
        plaintext: [UInt8], header: KeyBundleHeader, sender: IdentityKeyPair, devicePublicKey: [UInt8],
        ephemeral: HybridPublicKeyEncryption.KeyPair?
    ) throws(KeyBundleSealingError) -> (bundle: KeyBundle, context: HybridPublicKeyEncryption.Context) {
        guard devicePublicKey.count == IdentityKeyPair.byteCount else {
            throw .invalidDevicePublicKey("must be \(IdentityKeyPair.byteCount) bytes, is \(devicePublicKey.count)")
        }
        guard plaintext.count == KeyBundleContents.byteCount else {
            throw .invalidField("the contents must be \(KeyBundleContents.byteCount) bytes, are \(plaintext.count)")
        }
        let aad = header.encoded()
        let (enc, context): ([UInt8], HybridPublicKeyEncryption.Context)
        do {
            (enc, context) = try HybridPublicKeyEncryption.setupSender(
                recipientPublicKey: devicePublicKey, sender: sender.pair, info: info, ephemeral: ephemeral)
        } catch {
            throw .invalidDevicePublicKey("\(error)")
        }
        let ct = try! context.seal(plaintext, authenticating: aad)
        return (KeyBundle(sealed: aad + enc + ct, keyID: nil), context)
    }

    // MARK: - Opening (device)

    /// Checks and opens the bundle on the device (SPEC §16.5 steps 4–8): the header names a key in
    /// `pinnedProviderKeys` (public keys), HPKE opens it for `device`, its fields are in range, the
    /// kid is the key's, and `now` is not after `expires`. The installation rules (step 9) are
    /// `installation(of:record:storedUnderKeyID:storedForEpoch:now:)`, applied by the store.
    public func open(device: IdentityKeyPair, pinnedProviderKeys: [[UInt8]], now: Int64) throws(KeyBundleError) -> KeyBundleContents {
        try openSteps(device: device, pinnedProviderKeys: pinnedProviderKeys, now: now).result.get()
    }

    /// Steps 4–5 throw; the result of steps 6–8 comes with the HPKE context that opened the bundle
    /// (the vectors' intermediates).
    package func openSteps(
        device: IdentityKeyPair, pinnedProviderKeys: [[UInt8]], now: Int64
    ) throws(KeyBundleError) -> (context: HybridPublicKeyEncryption.Context, result: Result<KeyBundleContents, KeyBundleError>) {
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
        let contents: KeyBundleContents
        do throws(KeyBundleError) { contents = try KeyBundleContents.parse(opened) } catch { return (context, .failure(error)) }
        if now > contents.expires { return (context, .failure(.bundleExpired(expires: contents.expires, now: now))) }
        return (context, .success(contents))
    }

    // MARK: - Installation rules (SPEC §16.5 step 9)

    /// What installing opened `contents` does, given the device's conversation record (nil when the
    /// device has none for the conversation), the conversation and epoch of a stored key with the
    /// bundle's kid (and its not-after time), and the kid of a stored key for the bundle's
    /// (conversation, epoch). The store calls this inside the transaction that then applies the
    /// plan; the vectors call it with their store contents. Checks, in order: `epoch_purged`,
    /// `epoch_out_of_range`, `conflicting_key`, then `already_installed`, `installed` (a new
    /// newest epoch) or `installed_retired` (below the newest). `startedAbove` is the earliest
    /// recorded start (``KeyBundleInstallPlan/createdAt``: `min(since, install time)`, the stored key's
    /// created time) of the conversation's stored epochs above the bundle's, nil when none: each of them
    /// told the device that every earlier epoch retired when it started (finding F1, SPEC §16.5 9f).
    package static func installation(
        of contents: KeyBundleContents, record: KeyBundleConversationRecord?,
        storedUnderKeyID: (conversation: String, epoch: Int64, notAfter: Int64?)?, storedForEpoch: KeyID?, startedAbove: Int64?,
        now: Int64
    ) throws(KeyBundleError) -> KeyBundleInstallPlan {
        let epoch = contents.epoch
        let record = record ?? KeyBundleConversationRecord()
        if epoch <= record.purgedThrough { throw .epochPurged(epoch: epoch, purgedThrough: record.purgedThrough) }
        if record.highWater > 0, epoch > record.highWater, epoch - record.highWater > KeyBundleConversationRecord.maximumStep {
            throw .epochOutOfRange(epoch: epoch, highWater: record.highWater)
        }
        if let stored = storedUnderKeyID {
            guard stored.conversation.utf8.elementsEqual(contents.conversation.utf8), stored.epoch == epoch else {
                throw .conflictingKey("this key is already stored for another conversation or epoch (epoch \(stored.epoch))")
            }
            // May tighten a stored retire-by, never loosen it.
            let tightened = earliest(stored.notAfter, contents.retireBy)
            return KeyBundleInstallPlan(installation: .alreadyInstalled, notAfter: tightened, retireEarlierAt: nil, createdAt: nil, record: record)
        }
        if storedForEpoch != nil {
            throw .conflictingKey("a different key is already stored for epoch \(epoch) of this conversation")
        }
        if epoch > record.highWater {
            var next = record
            next.highWater = epoch
            next.highWaterSince = contents.since
            let started = min(contents.since, now)
            return KeyBundleInstallPlan(
                installation: .installed, notAfter: contents.retireBy, retireEarlierAt: started, createdAt: started, record: next)
        }
        // Below the newest epoch: retired at the latest when the next stored epoch above it began (each of them
        // retired every earlier epoch when it started), and never after the newest began, whatever the bundle says.
        let notAfter = min(contents.retireBy ?? Int64.max, startedAbove ?? Int64.max, record.highWaterSince, now)
        return KeyBundleInstallPlan(
            installation: .installedRetired, notAfter: notAfter, retireEarlierAt: nil, createdAt: min(contents.since, now), record: record)
    }

    private static func earliest(_ a: Int64?, _ b: Int64?) -> Int64? {
        switch (a, b) {
        case let (a?, b?): min(a, b)
        case let (a?, nil): a
        case let (nil, b): b
        }
    }
}

extension KeyBundle: Equatable {
    /// Two bundles are equal when their bytes are.
    public static func == (lhs: KeyBundle, rhs: KeyBundle) -> Bool { lhs.bytes == rhs.bytes }
}

/// What the device remembers per conversation about the bundles it installed (SPEC §16.5 step 9):
/// the high-water epoch H, its since time S_H, and the purged-through tombstone P. Stored
/// authenticated under the master key.
public struct KeyBundleConversationRecord: Sendable, Equatable {
    /// The largest step the newest epoch may take with one bundle: 2^16.
    public static let maximumStep: Int64 = 65_536
    /// H: the newest epoch installed from a bundle; 0 when none.
    public var highWater: Int64
    /// S_H: the since time of epoch H (0 when there is none).
    public var highWaterSince: Int64
    /// P: every epoch up to this one was purged and never comes back; 0 when none.
    public var purgedThrough: Int64

    /// A record from its fields (all zero: a conversation the device knows nothing about).
    public init(highWater: Int64 = 0, highWaterSince: Int64 = 0, purgedThrough: Int64 = 0) {
        (self.highWater, self.highWaterSince, self.purgedThrough) = (highWater, highWaterSince, purgedThrough)
    }
}

/// What the store does to install one bundle: the outcome, the not-after time of the installed
/// (or already stored) key, when every earlier epoch of the conversation is retired (each gets
/// `min(its not-after, retireEarlierAt)`), the created time of a newly stored key, and the
/// conversation record afterwards.
package struct KeyBundleInstallPlan: Sendable, Equatable {
    package var installation: KeyBundleInstallation
    package var notAfter: Int64?
    package var retireEarlierAt: Int64?
    /// The created time of the newly stored key: `min(since, now)`, when its epoch started as far as the device
    /// knows (the bound later installs below it use, SPEC §16.5 9f); nil for `already_installed`.
    package var createdAt: Int64?
    package var record: KeyBundleConversationRecord

    package init(
        installation: KeyBundleInstallation, notAfter: Int64?, retireEarlierAt: Int64?, createdAt: Int64?, record: KeyBundleConversationRecord
    ) {
        (self.installation, self.notAfter, self.retireEarlierAt, self.createdAt, self.record) =
            (installation, notAfter, retireEarlierAt, createdAt, record)
    }
}

/// The result of installing a valid key bundle.
public enum KeyBundleInstallation: String, Sendable, Equatable, Codable, CaseIterable {
    /// The key was added as the conversation's newest epoch; every earlier epoch is retired.
    case installed = "installed"
    /// The key was added below the newest epoch, retired at the earliest of its retire-by time, the
    /// start of the stored epochs above it, the newest epoch's since time and the install time.
    case installedRetired = "installed_retired"
    /// The same key was already stored for this conversation and epoch (its retire-by may have
    /// been tightened, never loosened).
    case alreadyInstalled = "already_installed"
}
