import PushSealJSON
import PushSealCore

import PushSealKeyDirectory
/// The key bundle vectors, format 2 (Vectors/pushseal-v1-bundles.json, SPEC §16.8): every key is
/// derived from a fixed seed with RFC 9180 DeriveKeyPair, so the file regenerates byte for byte.
/// Each case gives the provider's conversation key K, the device key K_d derived from it, the
/// sealed fields, the device's store before (stored keys, conversation record) and the outcome,
/// with the not-after times and the record the installation rules produce.
package enum BundleVectorSuite {
    /// Schema name written into the file.
    package static let schema = "pushseal_v1_bundle_test_schema"
    /// Schema version written into the file: 2 for bundle format 2.
    package static let schemaVersion = 2
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

    /// A stored key of the device: conversation, epoch, the key (a device key), its not-after time and its
    /// created time (from a bundle: min(since, install time), the start later installs below it are bounded by).
    struct StoredKey {
        var conversation: String
        var epoch: Int64
        var key: ConversationKey
        var notAfter: Int64?
        var createdAt: Int64 = BundleVectorSuite.since
    }

    /// The plaintext fields as sealed, out-of-range values included.
    struct Fields {
        var key: ConversationKey
        var kid: KeyID
        var epoch: UInt64
        var since: UInt64
        var retireBy: UInt64
        var expires: UInt64
        var conversationBytes: [UInt8]
        var length: UInt16?
        var padding: UInt8 = 0

        var plaintext: [UInt8] {
            KeyBundleContents.encode(key: key, keyID: kid, epoch: epoch, since: since, retireBy: retireBy, expires: expires,
                                     conversationBytes: conversationBytes, length: length, padding: padding)
        }
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
        /// K, the provider's conversation key (nil when the case's key is not derived from one).
        var rootKey: ConversationKey?
        var fields: Fields
        var conversation: String
        var now: Int64
        var stored: [StoredKey]
        var record: KeyBundleConversationRecord?
        /// In band: the kid of the envelope the bundle rides with.
        var envelopeKid: KeyID?
        var keyStore = "available"
        /// The ephemeral key's DeriveKeyPair input; nil when the text is not produced by sealing.
        var ikmE: SecretKey?
        var bundleText: String
        /// The HPKE context on the device, when the bundle opens (intermediates).
        var context: HybridPublicKeyEncryption.Context?
        var outcome: Result<KeyBundleInstallPlan, KeyBundleError>
        /// True when `KeyBundle.seal(conversationKey:…)` with these inputs reproduces `bundleText`.
        var resealable: Bool
    }

    static let standardDevice = identity("device")
    static let standardProvider = identity("provider")
    static let conversation = "conversation-1"
    static let since: Int64 = now - 86_400
    static let expires: Int64 = now + KeyBundle.defaultLifetime
    static let stillCurrent = UInt64.max

    /// Seals one bundle the way a provider does, from the case's inputs (K, the device, the
    /// fields), then lets `fields` and `edit` make it hostile.
    static func sealed(
        _ comment: String, flags: [String], device: IdentityKeyPair = standardDevice, recipient: IdentityKeyPair? = nil,
        sealer: IdentityKeyPair = standardProvider, header: KeyBundleHeader? = nil, pinned: [IdentityKeyPair] = [standardProvider],
        root: ConversationKey = conversationKey("1"), conversation: String = conversation, epoch: Int64 = 1, since: Int64 = since,
        retireBy: Int64? = nil, expires: Int64 = expires, now: Int64 = now, stored: [StoredKey] = [],
        record: KeyBundleConversationRecord? = nil, envelopeKid: KeyID? = nil, keyStore: String = "available",
        fields edit: ((inout Fields) -> Void)? = nil, bytes editBytes: ((inout [UInt8]) -> Void)? = nil, text: String? = nil
    ) -> Case {
        let ikmE = ikm("ephemeral " + comment)
        let ephemeral = try! HybridPublicKeyEncryption.deriveKeyPair(inputKeyMaterial: ikmE)
        let key = root.deviceKey(for: device.deviceKeyID)
        var fields = Fields(
            key: key, kid: key.id, epoch: UInt64(epoch), since: UInt64(since), retireBy: retireBy.map { UInt64($0) } ?? stillCurrent,
            expires: UInt64(expires), conversationBytes: Array(conversation.utf8))
        edit?(&fields)
        var plaintext = fields.plaintext
        defer { plaintext.withUnsafeMutableBytes { SecureMemory.wipe($0) } }
        let bundle = try! KeyBundle.seal(
            plaintext: plaintext, header: header ?? KeyBundleHeader(providerKeyID: sealer.providerKeyID), sender: sealer,
            devicePublicKey: (recipient ?? device).publicKey, ephemeral: ephemeral).bundle
        var bytes = bundle.bytes
        editBytes?(&bytes)
        let bundleText = text ?? Base64URL.encode(bytes)
        let resealable = edit == nil && editBytes == nil && text == nil && recipient == nil && header == nil
        var vector = Case(
            comment: comment, flags: flags, device: device, sealer: sealer, pinned: pinned.map(\.publicKey), rootKey: root, fields: fields,
            conversation: conversation, now: now, stored: stored, record: record, envelopeKid: envelopeKid, keyStore: keyStore, ikmE: ikmE,
            bundleText: bundleText, context: nil, outcome: .failure(.kidMismatch), resealable: resealable)
        (vector.context, vector.outcome) = evaluate(vector)
        return vector
    }

    /// Runs a case through the device's checks (SPEC §16.5) against its store contents.
    static func evaluate(_ vector: Case) -> (HybridPublicKeyEncryption.Context?, Result<KeyBundleInstallPlan, KeyBundleError>) {
        var context: HybridPublicKeyEncryption.Context?
        do throws(KeyBundleError) {
            let bundle = try KeyBundle(text: vector.bundleText)
            let steps = try bundle.openSteps(device: vector.device, pinnedProviderKeys: vector.pinned, now: vector.now)
            context = steps.context
            let contents = try steps.result.get()
            if let expected = vector.envelopeKid, contents.keyID != expected { throw .envelopeMismatch(expected) }
            guard vector.keyStore == "available" else { throw .storeLocked("the device store is locked") }
            let under = vector.stored.first { $0.key.id == contents.keyID }.map { (conversation: $0.conversation, epoch: $0.epoch, notAfter: $0.notAfter) }
            let forEpoch = vector.stored.first {
                $0.conversation.utf8.elementsEqual(contents.conversation.utf8) && $0.epoch == contents.epoch
            }?.key.id
            let startedAbove = vector.stored.filter {
                $0.conversation.utf8.elementsEqual(contents.conversation.utf8) && $0.epoch > contents.epoch
            }.map(\.createdAt).min()
            return (context, .success(try KeyBundle.installation(
                of: contents, record: vector.record, storedUnderKeyID: under, storedForEpoch: forEpoch, startedAbove: startedAbove,
                now: vector.now)))
        } catch {
            return (context, .failure(error))
        }
    }

    /// Every case, numbered from 1.
    static func cases() -> [Case] {
        let other = identity("other device")
        let forger = identity("forger")
        let secondProvider = identity("second provider")
        let k1 = conversationKey("1"), k2 = conversationKey("2"), k3 = conversationKey("3")
        let d1 = k1.deviceKey(for: standardDevice.deviceKeyID)
        let d2 = k2.deviceKey(for: standardDevice.deviceKeyID)
        let d3 = k3.deviceKey(for: standardDevice.deviceKeyID)
        let d3other = conversationKey("3 of conversation-1").deviceKey(for: standardDevice.deviceKeyID)
        let longConversation = String(repeating: "é", count: 128)  // 256 UTF-8 bytes
        let rotatedAt = now - 3_600
        let h1 = KeyBundleConversationRecord(highWater: 1, highWaterSince: since, purgedThrough: 0)
        let h2 = KeyBundleConversationRecord(highWater: 2, highWaterSince: rotatedAt, purgedThrough: 0)
        let h3 = KeyBundleConversationRecord(highWater: 3, highWaterSince: rotatedAt, purgedThrough: 0)
        let purged1 = KeyBundleConversationRecord(highWater: 2, highWaterSince: rotatedAt, purgedThrough: 1)
        let twoTo53Plus1: Int64 = (1 << 53) + 1
        let max = Int64.max
        let storedEpoch1 = StoredKey(conversation: conversation, epoch: 1, key: d1, notAfter: nil)
        let smallOrder = Hex.decode("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800")!
        let encRange = KeyBundleHeader.byteCount..<(KeyBundleHeader.byteCount + 32)
        var all: [Case] = [
            // Installs.
            sealed("installs a new current key", flags: ["Valid"]),
            sealed("a retired epoch delivered to a device that has none: installs with its retire-by", flags: ["Valid", "RetiredDelivery"],
                   retireBy: rotatedAt),
            sealed("rotation: epoch 2 retires epoch 1 at the provider's since, not the install time", flags: ["Valid", "Rotation"],
                   root: k2, epoch: 2, since: rotatedAt, stored: [storedEpoch1], record: h1),
            sealed("rotation delivered late (push service delayed it): epoch 1 retired at since", flags: ["Valid", "Rotation", "Delayed"],
                   root: k2, epoch: 2, since: now - 20 * 86_400, stored: [storedEpoch1], record: h1),
            sealed("since in the future: earlier epochs retired at the install time", flags: ["Valid", "Rotation"],
                   root: k2, epoch: 2, since: now + 600, stored: [storedEpoch1], record: h1),
            sealed("the same key is already stored: idempotent", flags: ["Valid", "AlreadyInstalled"], stored: [storedEpoch1], record: h1),
            sealed("already stored, the bundle carries a retire-by: tightened", flags: ["Valid", "AlreadyInstalled", "RetiredDelivery"],
                   retireBy: rotatedAt, stored: [storedEpoch1], record: h1),
            sealed("already stored retired, a current bundle: never loosened", flags: ["Valid", "AlreadyInstalled", "Replay"],
                   stored: [StoredKey(conversation: conversation, epoch: 1, key: d1, notAfter: rotatedAt)], record: h2),
            sealed("below the high-water: a replayed current bundle of epoch 1 installs retired at S_H", flags: ["Valid", "Replay", "BelowHighWater"],
                   stored: [StoredKey(conversation: conversation, epoch: 2, key: d2, notAfter: nil, createdAt: rotatedAt)], record: h2),
            sealed("finding F1: epochs 2 and 3 stored, epoch 1's bundle installs retired at epoch 2's start, not S_H",
                   flags: ["Valid", "Replay", "BelowHighWater", "NextSince"],
                   stored: [StoredKey(conversation: conversation, epoch: 2, key: d2, notAfter: rotatedAt, createdAt: rotatedAt - 1_800),
                            StoredKey(conversation: conversation, epoch: 3, key: d3, notAfter: nil, createdAt: rotatedAt)],
                   record: h3),
            sealed("finding F1, the epochs above stored by an earlier release (created at install, after S_H): S_H still bounds",
                   flags: ["Valid", "Replay", "BelowHighWater", "NextSince"],
                   stored: [StoredKey(conversation: conversation, epoch: 2, key: d2, notAfter: rotatedAt, createdAt: now - 60),
                            StoredKey(conversation: conversation, epoch: 3, key: d3, notAfter: nil, createdAt: now - 30)],
                   record: h3),
            sealed("finding F1: only the stored epochs of this conversation above the bundle's count",
                   flags: ["Valid", "Replay", "BelowHighWater", "NextSince"], root: k2, epoch: 2, since: rotatedAt - 1_800,
                   stored: [StoredKey(conversation: conversation, epoch: 1, key: d1, notAfter: rotatedAt - 1_800, createdAt: since),
                            StoredKey(conversation: "conversation-2", epoch: 3, key: d3, notAfter: nil, createdAt: since),
                            StoredKey(conversation: conversation, epoch: 3, key: d3other, notAfter: nil, createdAt: rotatedAt)],
                   record: h3),
            sealed("below the high-water with a retire-by later than S_H: S_H wins", flags: ["Valid", "RetiredDelivery", "BelowHighWater"],
                   retireBy: now - 60, record: h2),
            sealed("below the high-water with a retire-by before S_H: the retire-by wins", flags: ["Valid", "RetiredDelivery", "BelowHighWater"],
                   retireBy: since + 60, record: h2),
            sealed("the largest step: epoch H + 65536", flags: ["Valid", "StepCap"], root: k3, epoch: 1 + 65_536, since: rotatedAt, record: h1),
            sealed("now equals expires: still installs", flags: ["Valid", "ExpiryBoundary"], now: expires),
            sealed("256-byte multi-byte conversation id", flags: ["Valid", "Unicode", "MaxConversation"], conversation: longConversation),
            sealed("the second of two pinned provider keys sealed it", flags: ["Valid", "ProviderRotation"], sealer: secondProvider,
                   pinned: [standardProvider, secondProvider]),
            sealed("in band: the envelope's kid is the bundle's", flags: ["Valid", "InBand"], envelopeKid: d1.id),
            sealed("big integers: epoch 2^63-1, since 2^53+1, retire-by 2^63-2, expires 2^63-1", flags: ["Valid", "BigIntegers"],
                   epoch: max, since: twoTo53Plus1, retireBy: max - 1, expires: max),
            sealed("big integers below the high-water: epoch 2^53+1 under H = 2^63-2", flags: ["Valid", "BigIntegers", "BelowHighWater"],
                   epoch: twoTo53Plus1, since: twoTo53Plus1, expires: max,
                   record: KeyBundleConversationRecord(highWater: max - 1, highWaterSince: twoTo53Plus1 + 1, purgedThrough: twoTo53Plus1 - 1)),
            // Text and length.
            sealed("padding character in the text", flags: ["Base64"], text: "Ag=="),
            sealed("empty text", flags: ["Base64"], text: ""),
            sealed("1025 characters: longer than any text a device decodes", flags: ["Length"], text: String(repeating: "A", count: 1025)),
            sealed("402 bytes", flags: ["Length"], bytes: { $0.removeLast() }),
            sealed("404 bytes", flags: ["Length"], bytes: { $0.append(0) }),
            sealed("the header alone", flags: ["Length"], bytes: { $0 = Array($0.prefix(KeyBundleHeader.byteCount)) }),
            // Version.
            sealed("version 1 (a format-1 bundle) is refused", flags: ["Version", "Format1"], bytes: { $0[0] = 1 }),
            sealed("version 1 at a format-1 length (version is checked before the length)", flags: ["Version", "Format1"],
                   bytes: { $0[0] = 1; $0 = Array($0.prefix(160)) }),
            sealed("version 3", flags: ["Version"], bytes: { $0[0] = 3 }),
            // Provider and authentication.
            sealed("provider key not pinned", flags: ["UnknownProvider"], sealer: secondProvider),
            sealed("forged: names the pinned provider key, sealed with another key", flags: ["Forged"], sealer: forger,
                   header: KeyBundleHeader(providerKeyID: standardProvider.providerKeyID)),
            sealed("sealed to another device (no device key id in clear)", flags: ["OtherDevice"], recipient: other),
            sealed("header tampered: the other pinned provider's id", flags: ["Tampered"], pinned: [standardProvider, secondProvider],
                   bytes: { $0.replaceSubrange(1..<17, with: secondProvider.providerKeyID.bytes) }),
            sealed("sealed contents tampered", flags: ["Tampered"], bytes: { $0[100] ^= 0x01 }),
            sealed("tag tampered", flags: ["Tampered"], bytes: { $0[$0.count - 1] ^= 0x80 }),
            sealed("enc replaced by a small-order point (all-zero DH, RFC 9180 §7.1.4)", flags: ["SmallOrder"],
                   bytes: { $0.replaceSubrange(encRange, with: smallOrder) }),
            // Sealed fields out of range.
            sealed("epoch 0", flags: ["Field"], fields: { $0.epoch = 0 }),
            sealed("epoch 2^63", flags: ["Field", "BigIntegers"], fields: { $0.epoch = 1 << 63 }),
            sealed("since 2^63", flags: ["Field", "BigIntegers"], fields: { $0.since = 1 << 63; $0.retireBy = stillCurrent }),
            sealed("retire-by before since", flags: ["Field"], fields: { $0.retireBy = $0.since - 1 }),
            sealed("retire-by 2^63 (neither a time nor still current)", flags: ["Field", "BigIntegers"], fields: { $0.retireBy = 1 << 63 }),
            sealed("expires 2^63", flags: ["Field", "BigIntegers"], fields: { $0.expires = 1 << 63 }),
            sealed("conversation id length 0", flags: ["Field"], fields: { $0.length = 0 }),
            sealed("conversation id length 257", flags: ["Field"], fields: { $0.length = 257 }),
            sealed("a nonzero byte in the padding", flags: ["Field"], fields: { $0.padding = 1 }),
            sealed("the conversation id is not UTF-8", flags: ["Field"], fields: { $0.conversationBytes = [0x63, 0xff, 0x31] }),
            sealed("the conversation id has a control character", flags: ["Field"], fields: { $0.conversationBytes = Array("c\u{1}1".utf8) }),
            sealed("the sealed kid is not the key's", flags: ["KidMismatch"], fields: { $0.kid = d2.id }),
            sealed("the sealed kid is the conversation key K's, not K_d's", flags: ["KidMismatch", "RootKey"],
                   fields: { $0.kid = k1.id }),
            sealed("expired one second ago", flags: ["Expired", "ExpiryBoundary"], now: expires + 1),
            sealed("in band: the bundle carries another key than the envelope's", flags: ["InBand", "EnvelopeMismatch"], envelopeKid: d2.id),
            // Replay, rollback and the step cap.
            sealed("a purged epoch never comes back (replayed old bundle after purge)", flags: ["Replay", "Purged"], record: purged1),
            sealed("below the tombstone", flags: ["Replay", "Purged"],
                   record: KeyBundleConversationRecord(highWater: 5, highWaterSince: rotatedAt, purgedThrough: 3)),
            sealed("one above the largest step: epoch H + 65537", flags: ["StepCap"], root: k3, epoch: 1 + 65_537, record: h1),
            sealed("KCI: epoch 2^63-1 from a stolen device key is out of range", flags: ["StepCap", "BigIntegers", "KCI"], root: k3,
                   epoch: max, record: h2),
            // Conflicts and the store.
            sealed("a different key is stored for (conversation, epoch)", flags: ["Conflict"],
                   stored: [StoredKey(conversation: conversation, epoch: 1, key: d2, notAfter: nil)], record: h1),
            sealed("this key is stored under another epoch", flags: ["Conflict"],
                   stored: [StoredKey(conversation: conversation, epoch: 3, key: d1, notAfter: nil)],
                   record: KeyBundleConversationRecord(highWater: 3, highWaterSince: since, purgedThrough: 0)),
            sealed("this key is stored under another conversation", flags: ["Conflict"],
                   stored: [StoredKey(conversation: "conversation-2", epoch: 1, key: d1, notAfter: nil)]),
            sealed("the device store is locked", flags: ["StoreLocked"], keyStore: "locked"),
        ]
        for index in all.indices { all[index].tcId = index + 1 }
        return all
    }

    /// Descriptions of the flags used in the file.
    static let flagNotes: [(String, String)] = [
        ("Valid", "A bundle the device installs (installed, installed_retired or already_installed)."),
        ("RetiredDelivery", "The bundle carries a retire-by time: its epoch was no longer current when sealed."),
        ("Rotation", "A new newest epoch: every earlier epoch gets notAfter := min(its notAfter, since, now)."),
        ("Delayed", "The new epoch's bundle arrives long after the rotation; the retire-by is the provider's since."),
        ("AlreadyInstalled", "The same key is stored: a retire-by may be tightened, never loosened."),
        ("Replay", "An old bundle shown again."),
        ("BelowHighWater", "An epoch below the newest installed: installed_retired with notAfter := min(retireBy, T_above, S_H, now)."),
        ("NextSince", "Finding F1: T_above, the earliest createdAt of the conversation's stored keys above the epoch, bounds installed_retired."),
        ("StepCap", "The newest epoch moves by at most 65536 per bundle."),
        ("ExpiryBoundary", "now at or just after expires."),
        ("Unicode", "A conversation id with multi-byte UTF-8."),
        ("MaxConversation", "The longest conversation id, 256 bytes."),
        ("ProviderRotation", "Several provider keys pinned; a later one sealed the bundle."),
        ("InBand", "The bundle rides with an envelope whose kid is `envelopeKid`."),
        ("BigIntegers", "Integers beyond 2^53: read them exactly."),
        ("Base64", "The text is not strict base64url or is empty."),
        ("Length", "The text is over 1024 characters or the bundle is not 403 bytes."),
        ("Version", "A version byte other than 0x02."),
        ("Format1", "A format-1 bundle: unsupported_bundle_version."),
        ("UnknownProvider", "The provider key id is not pinned on the device."),
        ("Forged", "The header names a pinned provider key but another key sealed it."),
        ("OtherDevice", "Sealed to another device's key: authentication fails."),
        ("Tampered", "Bytes changed after sealing."),
        ("SmallOrder", "enc is a small-order point; the all-zero DH result is refused."),
        ("Field", "A sealed field is out of range (found after authentication)."),
        ("KidMismatch", "The sealed kid is not the sealed key's."),
        ("RootKey", "The sealed kid is the root key K's: a device only ever gets K_d."),
        ("Expired", "now is after expires."),
        ("EnvelopeMismatch", "The bundle's kid is not the envelope's: not installed."),
        ("Purged", "The epoch is at or below the conversation's tombstone."),
        ("KCI", "Key-compromise impersonation with a stolen device store reaches only that device, and not beyond the step cap."),
        ("Conflict", "The store holds a conflicting key."),
        ("StoreLocked", "The device store is locked after the bundle checked out."),
    ]

    /// The vector file's text (pretty-printed JSON, trailing newline).
    package static func render() -> String {
        let all = cases()
        var writer = JSONWriter(capacity: 1 << 17)
        writer.appendPretty(.object(JSONObject(members: [
            .init(name: "schema", value: .string(schema)),
            .init(name: "schemaVersion", value: .number(String(schemaVersion))),
            .init(name: "algorithm", value: .string("PushSeal-v1 key bundle format 2: HPKE mode_auth DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305, info \"pushseal v1 key bundle 2\"")),
            .init(name: "generator", value: .string("pushseal vectors generate --bundles")),
            .init(name: "numberOfTests", value: .number(String(all.count))),
            .init(name: "header", value: .array([
                .string("PushSeal key bundle format 2 test vectors (see Docs/SPEC.md section 16 and Vectors/README.md)."),
                .string("Byte strings are lowercase hex; `bundle` is the exact text form. Key pairs come from RFC 9180 DeriveKeyPair of a fixed seed."),
                .string("`conversationKey` is the provider's K, `deviceKey` the sealed K_d = HKDF-Expand(K, \"pushseal v1 device conversation key\" || deviceKeyId, 32); `plaintext` is the sealed 338 bytes."),
                .string("`storedKeys` and `conversationRecord` are the device store before; `notAfter`, `retireEarlierAt`, `createdAt` (the new key's created time, min(since, now)) and `conversationRecordAfter` what installing does; a stored key's `createdAt` bounds an `installed_retired` key below it (SPEC §16.5 9f)."),
                .string("Intermediates are those of the device's HPKE context (null when HPKE does not open the bundle)."),
            ])),
            .init(name: "notes", value: .object(JSONObject(members: flagNotes.map { .init(name: $0.0, value: .string($0.1)) }))),
            .init(name: "tests", value: .array(all.map(\.jsonValue))),
        ])))
        writer.appendRaw("\n")
        return writer.text
    }

    /// Number of cases in the file.
    package static var caseCount: Int { cases().count }

    static func json(_ record: KeyBundleConversationRecord?) -> JSONValue {
        guard let record else { return .null }
        return .object(JSONObject(members: [
            .init(name: "highWater", value: .number(String(record.highWater))),
            .init(name: "highWaterSince", value: .number(String(record.highWaterSince))),
            .init(name: "purgedThrough", value: .number(String(record.purgedThrough))),
        ]))
    }
}

extension BundleVectorSuite.Case {
    var jsonValue: JSONValue {
        func hex(_ key: SecretKey?) -> JSONValue { key.map { .string($0.withUnsafeBytes { Hex.encode($0) }) } ?? .null }
        func hexBytes(_ bytes: [UInt8]?) -> JSONValue { bytes.map { .string(Hex.encode($0)) } ?? .null }
        func keyHex(_ key: ConversationKey) -> JSONValue { .string(key.withUnsafeBytes { Hex.encode($0) }) }
        func number(_ value: Int64?) -> JSONValue { value.map { .number(String($0)) } ?? .null }
        func pair(_ identity: IdentityKeyPair) -> JSONValue {
            .object(JSONObject(members: [
                .init(name: "private", value: .string(identity.withUnsafePrivateKeyBytes { Hex.encode($0) })),
                .init(name: "public", value: .string(Hex.encode(identity.publicKey))),
            ]))
        }
        // SPEC §16.8: the strict base64url decoding whatever its length, null when there is none.
        let strictlyDecoded = try? Base64URL.decode(bundleText)
        let decoded = strictlyDecoded ?? []
        let parsed = (try? KeyBundle(bytes: decoded)) != nil
        let headerCount = KeyBundleHeader.byteCount
        var plaintext = fields.plaintext
        defer { plaintext.withUnsafeMutableBytes { SecureMemory.wipe($0) } }
        var members: [JSONObject.Member] = [
            .init(name: "tcId", value: .number(String(tcId))),
            .init(name: "comment", value: .string(comment)),
            .init(name: "flags", value: .array(flags.map { .string($0) })),
            .init(name: "deviceKeyPair", value: pair(device)),
            .init(name: "deviceKeyId", value: .string(device.deviceKeyID.hex)),
            .init(name: "providerKeyPair", value: pair(sealer)),
            .init(name: "providerKeyId", value: .string(sealer.providerKeyID.hex)),
            .init(name: "pinnedProviderKeys", value: .array(pinned.map { .string(Hex.encode($0)) })),
            .init(name: "conversationKey", value: rootKey.map(keyHex) ?? .null),
            .init(name: "deviceKey", value: keyHex(fields.key)),
            .init(name: "kid", value: .string(fields.kid.hex)),
            .init(name: "conversation", value: .string(conversation)),
            .init(name: "epoch", value: .number(String(fields.epoch))),
            .init(name: "since", value: .number(String(fields.since))),
            .init(name: "retireBy", value: fields.retireBy == BundleVectorSuite.stillCurrent ? .null : .number(String(fields.retireBy))),
            .init(name: "expires", value: .number(String(fields.expires))),
            .init(name: "plaintext", value: .string(Hex.encode(plaintext))),
            .init(name: "now", value: .number(String(now))),
            .init(name: "envelopeKid", value: envelopeKid.map { .string($0.hex) } ?? .null),
            .init(name: "keyStore", value: .string(keyStore)),
            .init(name: "storedKeys", value: .array(stored.map { entry in
                .object(JSONObject(members: [
                    .init(name: "conversation", value: .string(entry.conversation)),
                    .init(name: "epoch", value: .number(String(entry.epoch))),
                    .init(name: "key", value: keyHex(entry.key)),
                    .init(name: "notAfter", value: number(entry.notAfter)),
                    .init(name: "createdAt", value: .number(String(entry.createdAt))),
                ]))
            })),
            .init(name: "conversationRecord", value: BundleVectorSuite.json(record)),
            .init(name: "ikmE", value: hex(ikmE)),
            .init(name: "resealable", value: .bool(resealable)),
            .init(name: "bundle", value: .string(bundleText)),
            .init(name: "bundleHex", value: strictlyDecoded.map { .string(Hex.encode($0)) } ?? .null),
            .init(name: "aad", value: hexBytes(parsed ? Array(decoded.prefix(headerCount)) : nil)),
            .init(name: "enc", value: hexBytes(parsed ? Array(decoded[headerCount..<(headerCount + 32)]) : nil)),
            .init(name: "ct", value: hexBytes(parsed ? Array(decoded[(headerCount + 32)...]) : nil)),
            .init(name: "sharedSecret", value: hex(context?.sharedSecret)),
            .init(name: "hpkeKey", value: hex(context?.key)),
            .init(name: "baseNonce", value: hexBytes(context?.baseNonce)),
        ]
        switch outcome {
        case let .success(plan):
            members += [
                .init(name: "result", value: .string("valid")),
                .init(name: "outcome", value: .string(plan.installation.rawValue)),
                .init(name: "reason", value: .null),
                .init(name: "notAfter", value: number(plan.notAfter)),
                .init(name: "retireEarlierAt", value: number(plan.retireEarlierAt)),
                .init(name: "createdAt", value: number(plan.createdAt)),
                .init(name: "conversationRecordAfter", value: BundleVectorSuite.json(plan.record)),
            ]
        case let .failure(error):
            members += [
                .init(name: "result", value: .string("invalid")),
                .init(name: "outcome", value: .null),
                .init(name: "reason", value: .string(error.reason.rawValue)),
                .init(name: "notAfter", value: .null),
                .init(name: "retireEarlierAt", value: .null),
                .init(name: "createdAt", value: .null),
                .init(name: "conversationRecordAfter", value: .null),
            ]
        }
        return .object(JSONObject(members: members))
    }
}
