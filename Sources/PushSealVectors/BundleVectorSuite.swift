import PushSealJSON
import PushSealCore

/// The key bundle vectors (Vectors/pushseal-v1-bundles.json, SPEC §16.8): every key is derived
/// from a fixed seed with RFC 9180 DeriveKeyPair, so the file regenerates byte for byte.
public enum BundleVectorSuite {
    /// Schema name written into the file.
    public static let schema = "pushseal_v1_bundle_test_schema"
    /// Schema version written into the file.
    public static let schemaVersion = 1
    /// The device's clock unless a case says otherwise (as the receiver vectors).
    static let now: Int64 = VectorSuite.now

    static let seed = SecretKey(bytes: Array("PushSeal v1 bundle test vectors".utf8))

    /// ikm = HMAC-SHA256(seed, label), the input of DeriveKeyPair and of conversation keys.
    static func ikm(_ label: String) -> SecretKey {
        SecretKey(bytes: HMACSHA256.authenticationCode(for: Array(label.utf8), using: seed))
    }

    static func keyPair(_ label: String) -> HybridPublicKeyEncryption.KeyPair {
        try! HybridPublicKeyEncryption.deriveKeyPair(inputKeyMaterial: ikm("key pair " + label))
    }

    static func identity(_ label: String) -> IdentityKeyPair { IdentityKeyPair(pair: keyPair(label)) }

    static func conversationKey(_ label: String) -> ConversationKey {
        try! ConversationKey(ikm("conversation key " + label))
    }

    /// One case of the file.
    struct Case {
        var tcId = 0
        var comment: String
        var flags: [String]
        var device: IdentityKeyPair
        var sealer: IdentityKeyPair
        /// The pinned provider public keys.
        var pinned: [[UInt8]]
        var key: ConversationKey
        var conversation: String
        var epoch: Int64
        var notAfter: Int64?
        var now: Int64
        var stored: [(conversation: String, epoch: Int64, key: ConversationKey)]
        var keyStore = "available"
        /// The ephemeral key's DeriveKeyPair input; nil when the text is not produced by sealing.
        var ikmE: SecretKey?
        var bundleText: String
        /// The HPKE context on the device, when the bundle opens (intermediates).
        var context: HybridPublicKeyEncryption.Context?
        var outcome: Result<KeyBundleInstallation, KeyBundleError>
        /// True when `seal` with these inputs reproduces `bundleText`.
        var resealable: Bool
    }

    static let standardDevice = identity("device")
    static let standardProvider = identity("provider")
    static let conversation = "conversation-1"
    static let notAfter: Int64 = now + 86_400

    /// Seals one bundle the way a provider does, from the case's inputs.
    static func sealed(
        _ comment: String, flags: [String], device: IdentityKeyPair = standardDevice, recipient: IdentityKeyPair? = nil, sealer: IdentityKeyPair = standardProvider,
        pinned: [IdentityKeyPair] = [standardProvider], key: ConversationKey = conversationKey("1"), conversation: String = conversation,
        epoch: Int64 = 1, notAfter: Int64? = notAfter, now: Int64 = now,
        stored: [(conversation: String, epoch: Int64, key: ConversationKey)] = [], keyStore: String = "available",
        header: ((KeyBundleHeader) -> KeyBundleHeader)? = nil, conversationBytes: [UInt8]? = nil,
        edit: ((inout [UInt8]) -> Void)? = nil, text: String? = nil
    ) -> Case {
        let ikmE = ikm("ephemeral " + comment)
        let ephemeral = try! HybridPublicKeyEncryption.deriveKeyPair(inputKeyMaterial: ikmE)
        var bundleHeader = try! KeyBundleHeader(
            providerKeyID: sealer.providerKeyID, deviceKeyID: (recipient ?? device).deviceKeyID, epoch: epoch, notAfter: notAfter,
            keyID: key.id)
        if let header { bundleHeader = header(bundleHeader) }
        let bundle = try! KeyBundle.seal(
            key, header: bundleHeader, conversationBytes: conversationBytes ?? Array(conversation.utf8), sender: sealer,
            devicePublicKey: (recipient ?? device).publicKey, ephemeral: ephemeral).bundle
        var bytes = bundle.bytes
        edit?(&bytes)
        let bundleText = text ?? Base64URL.encode(bytes)
        let resealable = header == nil && edit == nil && text == nil && recipient == nil && conversationBytes == nil
        var vector = Case(
            comment: comment, flags: flags, device: device, sealer: sealer, pinned: pinned.map(\.publicKey), key: key, conversation: conversation,
            epoch: epoch, notAfter: notAfter, now: now, stored: stored, keyStore: keyStore, ikmE: ikmE, bundleText: bundleText,
            context: nil, outcome: .success(.installed), resealable: resealable)
        (vector.context, vector.outcome) = evaluate(vector)
        return vector
    }

    /// Runs a case through the receiver's checks (SPEC §16.5) against its store contents.
    static func evaluate(_ vector: Case) -> (HybridPublicKeyEncryption.Context?, Result<KeyBundleInstallation, KeyBundleError>) {
        var context: HybridPublicKeyEncryption.Context?
        do throws(KeyBundleError) {
            let bundle = try KeyBundle(text: vector.bundleText)
            let steps = try bundle.openSteps(device: vector.device, pinnedProviderKeys: vector.pinned, now: vector.now)
            context = steps.context
            let opened = try steps.result.get()
            guard vector.keyStore == "available" else { throw .storeLocked("the device store is locked") }
            let header = bundle.header
            let underKeyID = vector.stored.first { $0.key.id == header.keyID }.map { (conversation: $0.conversation, epoch: $0.epoch) }
            let forEpoch = vector.stored.first { $0.conversation.utf8.elementsEqual(opened.conversation.utf8) && $0.epoch == header.epoch }?.key.id
            return (context, .success(try KeyBundle.installation(
                of: header, conversation: opened.conversation, storedUnderKeyID: underKeyID, storedForEpoch: forEpoch)))
        } catch {
            return (context, .failure(error))
        }
    }

    /// Every case, numbered from 1.
    static func cases() -> [Case] {
        let other = identity("other device")
        let forger = identity("forger")
        let secondProvider = identity("second provider")
        let k1 = conversationKey("1")
        let k2 = conversationKey("2")
        let longConversation = String(repeating: "é", count: 128)  // 256 UTF-8 bytes
        var all: [Case] = [
            sealed("installs a new key", flags: ["Valid"]),
            sealed("no not-after time (0xffffffffffffffff)", flags: ["Valid", "NoLimit"], notAfter: nil),
            sealed("the same key is already stored: idempotent", flags: ["Valid", "AlreadyInstalled"], stored: [(conversation, 1, k1)]),
            sealed("rotation: epoch 2 while epoch 1 is stored", flags: ["Valid", "Rotation"], key: k2, epoch: 2, stored: [(conversation, 1, k1)]),
            sealed("now equals notAfter: still live", flags: ["Valid", "ExpiryBoundary"], now: notAfter),
            sealed("256-byte multi-byte conversation id", flags: ["Valid", "Unicode", "MaxConversation"], conversation: longConversation),
            sealed("the second of two pinned provider keys sealed it", flags: ["Valid", "ProviderRotation"], sealer: secondProvider,
                   pinned: [standardProvider, secondProvider]),
            sealed("padding character in the text", flags: ["Base64"], text: "AQ=="),
            sealed("empty text", flags: ["Base64"], text: ""),
            sealed("145 bytes: no room for a conversation id", flags: ["Length"], edit: { $0 = Array($0.prefix(145)) }),
            sealed("402 bytes: a conversation id over 256 bytes", flags: ["Length"], conversation: longConversation, edit: { $0.append(0) }),
            sealed("shorter than the header", flags: ["Length"], edit: { $0 = Array($0.prefix(40)) }),
            sealed("epoch 0", flags: ["Header"], edit: { for i in 33..<41 { $0[i] = 0 } }),
            sealed("notAfter 2^63 (neither a time nor no-limit)", flags: ["Header"], edit: { $0[41] = 0x80; for i in 42..<49 { $0[i] = 0 } }),
            sealed("text longer than the longest bundle", flags: ["Length"], text: String(repeating: "A", count: KeyBundle.maximumTextLength + 1)),
            sealed("version 2", flags: ["Version"], edit: { $0[0] = 2 }),
            sealed("version 2 with another length (version is checked before the length)", flags: ["Version"], edit: { $0[0] = 2; $0 = Array($0.prefix(60)) }),
            sealed("the sealed conversation id is not UTF-8 (checked after authentication)", flags: ["SealedConversation"],
                   conversationBytes: [0x63, 0xff, 0x31]),
            sealed("sealed to another device", flags: ["WrongDevice"], recipient: other),
            sealed("provider key not pinned", flags: ["UnknownProvider"], sealer: secondProvider),
            sealed("forged: names the pinned provider key, sealed with another key", flags: ["Forged"], sealer: forger,
                   header: { try! KeyBundleHeader(providerKeyID: standardProvider.providerKeyID, deviceKeyID: $0.deviceKeyID, epoch: $0.epoch,
                                                  notAfter: $0.notAfter, keyID: $0.keyID) }),
            sealed("sealed key tampered", flags: ["Tampered"], edit: { $0[$0.count - 20] ^= 0x01 }),
            sealed("tag tampered", flags: ["Tampered"], edit: { $0[$0.count - 1] ^= 0x80 }),
            sealed("header tampered: epoch 1 changed to 2 (replay to another epoch)", flags: ["Tampered", "Replay"], edit: { $0[40] = 2 }),
            sealed("header tampered: notAfter extended", flags: ["Tampered"], edit: { $0[48] ^= 0x01 }),
            sealed("one byte removed from the end (a shorter conversation id): authentication fails", flags: ["Tampered", "Length"],
                   edit: { $0.removeLast() }),
            sealed("one byte appended (a longer conversation id): authentication fails", flags: ["Tampered", "Length"], edit: { $0.append(0) }),
            sealed("enc replaced by a small-order point (all-zero DH, RFC 9180 §7.1.4)", flags: ["SmallOrder"], edit: { bytes in
                let point = Hex.decode("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800")!
                bytes.replaceSubrange(KeyBundleHeader.byteCount..<(KeyBundleHeader.byteCount + 32), with: point)
            }),
            sealed("header kid is not the sealed key's", flags: ["KidMismatch"],
                   header: { try! KeyBundleHeader(providerKeyID: $0.providerKeyID, deviceKeyID: $0.deviceKeyID, epoch: $0.epoch,
                                                  notAfter: $0.notAfter, keyID: k2.id) }),
            sealed("expired one second ago", flags: ["Expired", "ExpiryBoundary"], now: notAfter + 1),
            sealed("a different key is stored for (conversation, epoch)", flags: ["Conflict"], stored: [(conversation, 1, k2)]),
            sealed("this key is stored under another epoch", flags: ["Conflict"], stored: [(conversation, 3, k1)]),
            sealed("this key is stored under another conversation", flags: ["Conflict"], stored: [("conversation-2", 1, k1)]),
            sealed("the device store is locked", flags: ["StoreLocked"], keyStore: "locked"),
        ]
        for index in all.indices { all[index].tcId = index + 1 }
        return all
    }

    /// Descriptions of the flags used in the file.
    static let flagNotes: [(String, String)] = [
        ("Valid", "A bundle the device installs."),
        ("NoLimit", "notAfter is 0xffffffffffffffff: the key has no not-after time."),
        ("AlreadyInstalled", "The same key is already stored: installing is idempotent."),
        ("Rotation", "A new epoch of a conversation whose older epoch is stored."),
        ("ExpiryBoundary", "now at or just after notAfter."),
        ("Unicode", "A conversation id with multi-byte UTF-8."),
        ("MaxConversation", "The longest conversation id, 256 bytes."),
        ("ProviderRotation", "Several provider keys pinned; a later one sealed the bundle."),
        ("Base64", "The text is not strict base64url or is empty."),
        ("Length", "The decoded length is not 145 + n with n in 1...256, or the text is too long; or a length change that moves the sealed part."),
        ("Header", "A header field is out of range."),
        ("SealedConversation", "The sealed conversation id is not UTF-8 (found after authentication)."),
        ("Version", "A version byte other than 0x01."),
        ("WrongDevice", "Sealed to another device key."),
        ("UnknownProvider", "The provider key id is not pinned on the device."),
        ("Forged", "The header names a pinned provider key but another key sealed it."),
        ("Tampered", "Bytes changed after sealing."),
        ("Replay", "A valid bundle's header altered to install its key elsewhere."),
        ("SmallOrder", "enc is a small-order point; the all-zero DH result is refused."),
        ("KidMismatch", "The header's kid is not the sealed key's."),
        ("Expired", "now is after notAfter."),
        ("Conflict", "The store holds a conflicting key."),
        ("StoreLocked", "The device store is locked after the bundle checked out."),
    ]

    /// The vector file's text (pretty-printed JSON, trailing newline).
    public static func render() -> String {
        let all = cases()
        var writer = JSONWriter(capacity: 1 << 16)
        writer.appendPretty(.object(JSONObject(members: [
            .init(name: "schema", value: .string(schema)),
            .init(name: "schemaVersion", value: .number(String(schemaVersion))),
            .init(name: "algorithm", value: .string("PushSeal-v1 key bundle: HPKE mode_auth DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305")),
            .init(name: "generator", value: .string("pushseal vectors generate --bundles")),
            .init(name: "numberOfTests", value: .number(String(all.count))),
            .init(name: "header", value: .array([
                .string("PushSeal key bundle v1 test vectors (see Docs/SPEC.md section 16 and Vectors/README.md)."),
                .string("Byte strings are lowercase hex; `bundle` is the exact text form. Key pairs come from RFC 9180 DeriveKeyPair of a fixed seed."),
                .string("Intermediates are those of the device's HPKE context (null when HPKE does not open the bundle). The conversation id is sealed with K."),
            ])),
            .init(name: "notes", value: .object(JSONObject(members: flagNotes.map { .init(name: $0.0, value: .string($0.1)) }))),
            .init(name: "tests", value: .array(all.map(\.jsonValue))),
        ])))
        writer.appendRaw("\n")
        return writer.text
    }

    /// Number of cases in the file.
    public static var caseCount: Int { cases().count }
}

extension BundleVectorSuite.Case {
    var jsonValue: JSONValue {
        func hex(_ key: SecretKey?) -> JSONValue { key.map { .string($0.withUnsafeBytes { Hex.encode($0) }) } ?? .null }
        func hexBytes(_ bytes: [UInt8]?) -> JSONValue { bytes.map { .string(Hex.encode($0)) } ?? .null }
        func pair(_ identity: IdentityKeyPair) -> JSONValue {
            .object(JSONObject(members: [
                .init(name: "private", value: .string(identity.withUnsafePrivateKeyBytes { Hex.encode($0) })),
                .init(name: "public", value: .string(Hex.encode(identity.publicKey))),
            ]))
        }
        let decoded = (try? Base64URL.decode(bundleText)) ?? []
        let headerCount = (try? KeyBundle(bytes: decoded)).map { _ in KeyBundleHeader.byteCount }
        let result: JSONValue, outcomeValue: JSONValue, reasonValue: JSONValue
        switch outcome {
        case let .success(installation): (result, outcomeValue, reasonValue) = (.string("valid"), .string(installation.rawValue), .null)
        case let .failure(error): (result, outcomeValue, reasonValue) = (.string("invalid"), .null, .string(error.reason.rawValue))
        }
        return .object(JSONObject(members: [
            .init(name: "tcId", value: .number(String(tcId))),
            .init(name: "comment", value: .string(comment)),
            .init(name: "flags", value: .array(flags.map { .string($0) })),
            .init(name: "deviceKeyPair", value: pair(device)),
            .init(name: "deviceKeyId", value: .string(device.deviceKeyID.hex)),
            .init(name: "providerKeyPair", value: pair(sealer)),
            .init(name: "providerKeyId", value: .string(sealer.providerKeyID.hex)),
            .init(name: "pinnedProviderKeys", value: .array(pinned.map { .string(Hex.encode($0)) })),
            .init(name: "key", value: .string(key.withUnsafeBytes { Hex.encode($0) })),
            .init(name: "kid", value: .string(key.id.hex)),
            .init(name: "conversation", value: .string(conversation)),
            .init(name: "epoch", value: .number(String(epoch))),
            .init(name: "notAfter", value: notAfter.map { .number(String($0)) } ?? .null),
            .init(name: "now", value: .number(String(now))),
            .init(name: "keyStore", value: .string(keyStore)),
            .init(name: "storedKeys", value: .array(stored.map { entry in
                .object(JSONObject(members: [
                    .init(name: "conversation", value: .string(entry.conversation)),
                    .init(name: "epoch", value: .number(String(entry.epoch))),
                    .init(name: "key", value: .string(entry.key.withUnsafeBytes { Hex.encode($0) })),
                ]))
            })),
            .init(name: "ikmE", value: hex(ikmE)),
            .init(name: "resealable", value: .bool(resealable)),
            .init(name: "bundle", value: .string(bundleText)),
            .init(name: "bundleHex", value: .string(Hex.encode(decoded))),
            .init(name: "aad", value: hexBytes(headerCount.map { Array(decoded.prefix($0)) })),
            .init(name: "enc", value: hexBytes(headerCount.map { Array(decoded[$0..<($0 + 32)]) })),
            .init(name: "ct", value: hexBytes(headerCount.map { Array(decoded[($0 + 32)...]) })),
            .init(name: "sharedSecret", value: hex(context?.sharedSecret)),
            .init(name: "hpkeKey", value: hex(context?.key)),
            .init(name: "baseNonce", value: hexBytes(context?.baseNonce)),
            .init(name: "result", value: result),
            .init(name: "outcome", value: outcomeValue),
            .init(name: "reason", value: reasonValue),
        ]))
    }
}
