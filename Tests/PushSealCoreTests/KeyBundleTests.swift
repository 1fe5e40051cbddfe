import PushSealTestSupport
import Testing
@_spi(Vectors) import PushSealCore

/// Key bundles, format 2 (SPEC §16): sealing per device, the 17-byte header, the fixed-length
/// contents, every check of §16.5 in order, the installation rules and the registration.
@Suite("Key bundle")
struct KeyBundleTests {
    let device = IdentityKeyPair.generate()
    let provider = IdentityKeyPair.generate()
    let key = ConversationKey.generate()
    let now: Int64 = 1_764_400_000
    var registration: DeviceRegistration { try! DeviceRegistration(publicKey: device.publicKey) }
    var deviceKey: ConversationKey { key.deviceKey(for: device.deviceKeyID) }

    func seal(
        conversation: String = "c1", epoch: Int64 = 1, since: Int64 = 1_764_300_000, retireBy: Int64? = nil, expires: Int64 = 1_764_500_000,
        to device: IdentityKeyPair? = nil, from provider: IdentityKeyPair? = nil
    ) throws -> KeyBundle {
        try KeyBundle.seal(
            conversationKey: key, conversation: conversation, epoch: epoch, since: since, retireBy: retireBy, expires: expires,
            provider: provider ?? self.provider, device: DeviceRegistration(publicKey: (device ?? self.device).publicKey))
    }

    func open(_ bundle: KeyBundle, pinned: [[UInt8]]? = nil, now: Int64? = nil) throws(KeyBundleError) -> KeyBundleContents {
        try bundle.open(device: device, pinnedProviderKeys: pinned ?? [provider.publicKey], now: now ?? self.now)
    }

    /// Seals any plaintext to this device from `sender` under the pinned provider's header.
    func sealPlaintext(_ plaintext: [UInt8], sender: IdentityKeyPair? = nil) throws -> KeyBundle {
        try KeyBundle.seal(plaintext: plaintext, header: KeyBundleHeader(providerKeyID: provider.providerKeyID), sender: sender ?? provider,
                           devicePublicKey: device.publicKey, ephemeral: nil).bundle
    }

    func plaintext(
        key: ConversationKey? = nil, kid: KeyID? = nil, epoch: UInt64 = 1, since: UInt64 = 100, retireBy: UInt64 = .max, expires: UInt64 = 1_764_500_000,
        cid: [UInt8] = Array("c1".utf8), length: UInt16? = nil, padding: UInt8 = 0
    ) -> [UInt8] {
        let k = key ?? deviceKey
        return KeyBundleContents.encode(key: k, keyID: kid ?? k.id, epoch: epoch, since: since, retireBy: retireBy, expires: expires,
                                        conversationBytes: cid, length: length, padding: padding)
    }

    @Test("seal then open gives K_d (never K) and every field; one length for every bundle; only version and provider id in clear")
    func roundTrip() throws {
        let bundle = try seal(conversation: "héllo", epoch: 7, retireBy: 1_764_350_000)
        let opened = try open(bundle)
        #expect(opened.key == deviceKey)
        #expect(opened.key != key)
        #expect(opened.keyID == deviceKey.id)
        #expect(bundle.sealedKeyID == deviceKey.id)
        #expect(opened.conversation == "héllo")
        #expect((opened.epoch, opened.since, opened.retireBy, opened.expires) == (7, 1_764_300_000, 1_764_350_000, 1_764_500_000))
        #expect(bundle.bytes.count == 403)
        #expect(bundle.text.utf8.count == 538)
        #expect(KeyBundle.byteCount == 403 && KeyBundle.textLength == 538 && KeyBundleContents.byteCount == 338)
        #expect(Array(bundle.bytes.prefix(17)) == [0x02] + provider.providerKeyID.bytes)
        #expect(bundle.header.providerKeyID == provider.providerKeyID)
        let parsed = try KeyBundle(text: bundle.text)
        #expect(parsed == bundle)
        #expect(parsed.sealedKeyID == nil, "the kid is sealed")
        for secret in [device.deviceKeyID.bytes, deviceKey.id.bytes, key.id.bytes, Array("héllo".utf8)] {
            let found = (0...(bundle.bytes.count - secret.count)).contains { bundle.bytes[$0..<($0 + secret.count)].elementsEqual(secret) }
            #expect(!found)
        }
        #expect(try seal().bytes != seal().bytes, "a fresh ephemeral key per bundle")
        #expect(try seal(conversation: "a").bytes.count == seal(conversation: String(repeating: "é", count: 128)).bytes.count)
        let current = try open(seal())
        #expect(current.retireBy == nil)
        #expect(Array(current.encoded()[64..<72]) == [UInt8](repeating: 0xff, count: 8))
        #expect(try open(seal(expires: Int64.max), now: Int64.max).key == deviceKey, "big integers: expires 2^63-1")
    }

    @Test("identifiers are HKDF-Expand of the public key with their own labels")
    func identifiers() throws {
        #expect(KeyBundle.deviceKeyID(of: device.publicKey) != KeyBundle.providerKeyID(of: device.publicKey))
        let copy = try device.withUnsafePrivateKeyBytes { try IdentityKeyPair(privateKeyBytes: $0) }
        #expect(copy.publicKey == device.publicKey)
        #expect(throws: WireFormatError.incorrectKeySize(expected: 32, actual: 31)) { try IdentityKeyPair(privateKeyBytes: [UInt8](repeating: 1, count: 31)) }
    }

    @Test("steps 1–3: text length and alphabet, the version before the length, one length")
    func parsing() throws {
        let good = try seal().bytes
        func reason(_ bytes: [UInt8]) -> KeyBundleError? {
            do { _ = try KeyBundle(bytes: bytes); return nil } catch { return error }
        }
        func textReason(_ text: String) -> KeyBundleReason? {
            do { _ = try KeyBundle(text: text); return nil } catch { return error.reason }
        }
        #expect(textReason("") == .malformedBundle)
        #expect(textReason(Base64URL.encode(good) + "=") == .malformedBundle)
        #expect(textReason(String(repeating: "A", count: 1025)) == .malformedBundle)
        #expect(textReason("Ag" + String(repeating: "A", count: 1022)) == .malformedBundle, "version 2, but not 403 bytes")
        #expect(reason([])?.reason == .malformedBundle)
        #expect(reason([1]) == .unsupportedBundleVersion(1))
        #expect(reason([1] + good.dropFirst()) == .unsupportedBundleVersion(1), "format 1 is refused")
        #expect(reason([1] + [UInt8](repeating: 0, count: 159)) == .unsupportedBundleVersion(1), "at a format-1 length too")
        #expect(reason([3] + good.dropFirst()) == .unsupportedBundleVersion(3))
        #expect(reason(Array(good.dropLast()))?.reason == .malformedBundle)
        #expect(reason(good + [0])?.reason == .malformedBundle)
        #expect(reason(Array(good.prefix(17)))?.reason == .malformedBundle)
        #expect(reason(good) == nil)
    }

    @Test("steps 4–5: unknown provider; forged, tampered, sealed to another device, small-order enc: authentication fails")
    func authentication() throws {
        let bundle = try seal()
        let other = IdentityKeyPair.generate()
        #expect(throws: KeyBundleError.bundleAuthenticationFailed, "no wrong_device any more") { try open(seal(to: other)) }
        #expect(throws: KeyBundleError.unknownProvider(provider.providerKeyID)) { try open(bundle, pinned: [IdentityKeyPair.generate().publicKey]) }
        #expect(throws: KeyBundleError.unknownProvider(provider.providerKeyID)) { try open(bundle, pinned: []) }
        #expect(try open(bundle, pinned: [IdentityKeyPair.generate().publicKey, provider.publicKey]).key == deviceKey)
        let forger = IdentityKeyPair.generate()
        #expect(throws: KeyBundleError.bundleAuthenticationFailed) { try open(sealPlaintext(plaintext(), sender: forger)) }
        // The header naming the second pinned provider key: authenticated as associated data and in the KEM.
        let second = IdentityKeyPair.generate()
        var renamed = bundle.bytes
        renamed.replaceSubrange(1..<17, with: second.providerKeyID.bytes)
        #expect(throws: KeyBundleError.bundleAuthenticationFailed) { try open(KeyBundle(bytes: renamed), pinned: [provider.publicKey, second.publicKey]) }
        for offset in 17..<bundle.bytes.count {
            var tampered = bundle.bytes
            tampered[offset] ^= 0x01
            #expect(throws: KeyBundleError.bundleAuthenticationFailed, "offset \(offset)") { try open(KeyBundle(bytes: tampered)) }
        }
        var smallOrder = bundle.bytes
        smallOrder.replaceSubrange(17..<49, with: [UInt8](repeating: 0, count: 32))
        #expect(throws: KeyBundleError.bundleAuthenticationFailed) { try open(KeyBundle(bytes: smallOrder)) }
    }

    @Test("step 6: every sealed field out of range is malformed_bundle, found after authentication")
    func fieldRanges() throws {
        let cases: [(String, [UInt8])] = [
            ("epoch 0", plaintext(epoch: 0)),
            ("epoch 2^63", plaintext(epoch: 1 << 63)),
            ("since 2^63", plaintext(since: 1 << 63)),
            ("retireBy before since", plaintext(since: 100, retireBy: 99)),
            ("retireBy 2^63", plaintext(retireBy: 1 << 63)),
            ("expires 2^63", plaintext(expires: 1 << 63)),
            ("n 0", plaintext(length: 0)),
            ("n 257", plaintext(length: 257)),
            ("nonzero padding", plaintext(padding: 7)),
            ("not UTF-8", plaintext(cid: [0x63, 0xc3])),
            ("a control character", plaintext(cid: Array("c\u{0}1".utf8))),
        ]
        for (name, bytes) in cases {
            let bundle = try sealPlaintext(bytes)
            do throws(KeyBundleError) {
                _ = try open(bundle)
                Issue.record("\(name) opened")
            } catch {
                #expect(error.reason == .malformedBundle, "\(name)")
            }
        }
        // The edges that are in range.
        #expect(try open(sealPlaintext(plaintext(epoch: UInt64(Int64.max), since: UInt64(Int64.max), retireBy: UInt64(Int64.max)))).epoch == Int64.max)
        #expect(try open(sealPlaintext(plaintext(since: 5, retireBy: 5))).retireBy == 5)
        #expect(try open(sealPlaintext(plaintext(cid: Array(String(repeating: "x", count: 256).utf8)))).conversation.utf8.count == 256)
    }

    @Test("steps 7–8: a kid that is not the key's (K's kid included), then the expiry")
    func kidAndExpiry() throws {
        #expect(throws: KeyBundleError.kidMismatch) { try open(sealPlaintext(plaintext(kid: ConversationKey.generate().id))) }
        #expect(throws: KeyBundleError.kidMismatch) { try open(sealPlaintext(plaintext(kid: key.id))) }
        #expect(throws: KeyBundleError.kidMismatch, "the kid is checked before the expiry") {
            try open(sealPlaintext(plaintext(kid: key.id, expires: 0)))
        }
        let bundle = try seal(expires: 1_764_500_000)
        #expect(throws: KeyBundleError.bundleExpired(expires: 1_764_500_000, now: 1_764_500_001)) { try open(bundle, now: 1_764_500_001) }
        #expect(try open(bundle, now: 1_764_500_000).key == deviceKey, "now == expires still installs")
    }

    func contents(epoch: Int64, since: Int64 = 1_000, retireBy: Int64? = nil) throws -> KeyBundleContents {
        try KeyBundleContents(key: deviceKey, conversation: "c1", epoch: epoch, since: since, retireBy: retireBy, expires: .max)
    }

    @Test("step 9: the installation rules, in order")
    func installation() throws {
        func plan(_ c: KeyBundleContents, _ record: KeyBundleConversationRecord?, under: (String, Int64, Int64?)? = nil, forEpoch: KeyID? = nil,
                  startedAbove: Int64? = nil, now: Int64 = 5_000) throws(KeyBundleError) -> KeyBundleInstallPlan {
            try KeyBundle.installation(of: c, record: record, storedUnderKeyID: under, storedForEpoch: forEpoch, startedAbove: startedAbove, now: now)
        }
        let h3 = KeyBundleConversationRecord(highWater: 3, highWaterSince: 2_000, purgedThrough: 1)
        // A fresh conversation: installed, H := e, S_H := since.
        let fresh = try plan(contents(epoch: 1, since: 1_000), nil)
        #expect(fresh == KeyBundleInstallPlan(installation: .installed, notAfter: nil, retireEarlierAt: 1_000, createdAt: 1_000,
                                              record: .init(highWater: 1, highWaterSince: 1_000, purgedThrough: 0)))
        // A new newest epoch retires earlier ones at min(since, now): the provider's clock, not the install time.
        #expect(try plan(contents(epoch: 4, since: 3_000), h3).retireEarlierAt == 3_000)
        #expect(try plan(contents(epoch: 4, since: 9_000), h3).retireEarlierAt == 5_000, "a since in the future: now")
        #expect(try plan(contents(epoch: 4, since: 3_000), h3).record == .init(highWater: 4, highWaterSince: 3_000, purgedThrough: 1))
        // A retired epoch as the first: installed with its retire-by.
        #expect(try plan(contents(epoch: 1, since: 1_000, retireBy: 1_500), nil).notAfter == 1_500)
        // Below H: installed_retired, notAfter := min(retireBy, S_H, now), the record unchanged.
        let below = try plan(contents(epoch: 2, since: 1_000), h3)
        #expect(below == KeyBundleInstallPlan(installation: .installedRetired, notAfter: 2_000, retireEarlierAt: nil, createdAt: 1_000, record: h3))
        // Finding F1: a stored epoch above that started before S_H bounds it (epoch 3 started at 2_000, epoch 2 at 1_500).
        #expect(try plan(contents(epoch: 1, since: 1_000), .init(highWater: 3, highWaterSince: 2_000, purgedThrough: 0), startedAbove: 1_500).notAfter == 1_500)
        #expect(try plan(contents(epoch: 2, since: 1_000), h3, startedAbove: 2_500).notAfter == 2_000, "a later recorded start: S_H still bounds")
        #expect(try plan(contents(epoch: 2, since: 1_000, retireBy: 1_200), h3, startedAbove: 1_500).notAfter == 1_200)
        #expect(try plan(contents(epoch: 2, since: 9_000), h3).createdAt == 5_000, "the recorded start is never after the install")
        #expect(try plan(contents(epoch: 2, since: 1_000, retireBy: 1_500), h3).notAfter == 1_500)
        #expect(try plan(contents(epoch: 2, since: 1_000, retireBy: 4_000), h3).notAfter == 2_000)
        #expect(try plan(contents(epoch: 2, since: 1_000), h3, now: 1_800).notAfter == 1_800)
        #expect(try plan(contents(epoch: 3, since: 2_000), h3).installation == .installedRetired, "epoch H not held: retired at S_H")
        // The tombstone, checked first.
        #expect(throws: KeyBundleError.epochPurged(epoch: 1, purgedThrough: 1)) { try plan(contents(epoch: 1), h3, under: ("c1", 1, nil)) }
        // The step cap: H + 65536 installs, H + 65537 does not; epoch 2^63-1 from H = 3 does not.
        #expect(try plan(contents(epoch: 3 + 65_536), h3).installation == .installed)
        #expect(throws: KeyBundleError.epochOutOfRange(epoch: 3 + 65_537, highWater: 3)) { try plan(contents(epoch: 3 + 65_537), h3) }
        #expect(throws: KeyBundleError.epochOutOfRange(epoch: .max, highWater: 3)) { try plan(contents(epoch: .max), h3) }
        #expect(try plan(contents(epoch: .max), nil).installation == .installed, "no H: no cap")
        #expect(try plan(contents(epoch: .max), .init(highWater: .max - 1, highWaterSince: 0, purgedThrough: 0)).installation == .installed)
        // Conflicts.
        for (under, forEpoch) in [(("c1", 2, nil), nil), (("c2", 3, nil), nil), (nil, ConversationKey.generate().id)] as [((String, Int64, Int64?)?, KeyID?)] {
            let epoch3 = try contents(epoch: 3)
            do throws(KeyBundleError) {
                _ = try plan(epoch3, h3, under: under, forEpoch: forEpoch)
                Issue.record("must conflict")
            } catch {
                #expect(error.reason == .conflictingKey)
            }
        }
        // Already installed: a retire-by tightens, never loosens.
        #expect(try plan(contents(epoch: 3), h3, under: ("c1", 3, nil), forEpoch: deviceKey.id).installation == .alreadyInstalled)
        #expect(try plan(contents(epoch: 3), h3, under: ("c1", 3, nil)).notAfter == nil)
        #expect(try plan(contents(epoch: 3, retireBy: 2_500), h3, under: ("c1", 3, nil)).notAfter == 2_500)
        #expect(try plan(contents(epoch: 3, retireBy: 2_500), h3, under: ("c1", 3, 2_200)).notAfter == 2_200)
        #expect(try plan(contents(epoch: 3), h3, under: ("c1", 3, 2_200)).notAfter == 2_200)
    }

    @Test("sealing refuses out-of-range fields and unusable device keys, producing nothing")
    func sealingRefusals() throws {
        #expect(throws: KeyBundleSealingError.self) { try seal(epoch: 0) }
        #expect(throws: KeyBundleSealingError.self) { try seal(since: -1) }
        #expect(throws: KeyBundleSealingError.self) { try seal(since: 10, retireBy: 9) }
        #expect(throws: KeyBundleSealingError.self) { try seal(expires: -1) }
        #expect(throws: KeyBundleSealingError.self) { try seal(conversation: "") }
        #expect(throws: KeyBundleSealingError.self) { try seal(conversation: "c\u{1}") }
        #expect(throws: KeyBundleSealingError.self) { try seal(conversation: String(repeating: "x", count: 257)) }
        let contents = try contents(epoch: 1)
        #expect(throws: KeyBundleSealingError.self) {
            try KeyBundle.seal(contents, provider: provider, devicePublicKey: [UInt8](repeating: 0, count: 32), ephemeral: nil)
        }
        #expect(throws: KeyBundleSealingError.self) { try KeyBundle.seal(contents, provider: provider, devicePublicKey: [1, 2, 3], ephemeral: nil) }
        #expect(throws: KeyBundleSealingError.self) {
            try KeyBundle.seal(plaintext: [1], header: KeyBundleHeader(providerKeyID: provider.providerKeyID), sender: provider,
                               devicePublicKey: device.publicKey, ephemeral: nil)
        }
    }

    @Test("every error reports its own reason code")
    func reasonCodes() {
        let errors: [KeyBundleError] = [
            .malformedBundle(""), .unsupportedBundleVersion(1), .unknownProvider(key.id), .bundleAuthenticationFailed,
            .kidMismatch, .bundleExpired(expires: 0, now: 1), .envelopeMismatch(key.id), .epochPurged(epoch: 1, purgedThrough: 1),
            .epochOutOfRange(epoch: 70_000, highWater: 1), .conflictingKey(""), .storeLocked(""),
        ]
        #expect(errors.map(\.reason) == KeyBundleReason.allCases)
        #expect(KeyBundleReason.allCases.map(\.rawValue) == [
            "malformed_bundle", "unsupported_bundle_version", "unknown_provider", "bundle_authentication_failed", "kid_mismatch",
            "bundle_expired", "envelope_mismatch", "epoch_purged", "epoch_out_of_range", "conflicting_key", "store_locked",
        ])
        #expect(KeyBundleInstallation.allCases.map(\.rawValue) == ["installed", "installed_retired", "already_installed"])
        #expect(KeyBundleReason.storeLocked.rawValue == ReasonCode.storeLocked.rawValue)
        for error in errors { #expect(!"\(error)".isEmpty) }
    }

    @Test("registration JSON round-trips and is checked")
    func registrationJSON() throws {
        let parsed = try DeviceRegistration(json: Array(registration.json.utf8))
        #expect(parsed == registration)
        #expect(parsed.deviceKeyID == device.deviceKeyID)
        #expect(registration.json.hasPrefix("{\"suite\":\"pushseal-v1-x25519\",\"deviceKeyId\":\""))
        let other = try DeviceRegistration(publicKey: IdentityKeyPair.generate().publicKey)
        let swappedID = registration.json.replacingOccurrences(of: registration.deviceKeyID.base64URL, with: other.deviceKeyID.base64URL)
        for bad in [swappedID, "[]", "{", registration.json.replacingOccurrences(of: "pushseal-v1-x25519", with: "other"),
                    "{\"suite\":\"pushseal-v1-x25519\",\"deviceKeyId\":\"x\",\"publicKey\":\"AAAA\"}"] {
            #expect(throws: KeyBundleSealingError.self, "\(bad)") { try DeviceRegistration(json: Array(bad.utf8)) }
        }
    }

    @Test("hostile bytes: random strings and random edits of a valid bundle never trap, and only the untouched bundle opens")
    func hostileBytes() throws {
        var generator = TestSeed.generator()
        let good = try seal(conversation: "conversation-1")
        // The untouched bundle opens, to the key it carries.
        #expect(try open(good).key == deviceKey)
        var opened = 0, untouched = 0
        var refusals: [KeyBundleReason: Int] = [:]
        for round in 0..<3_000 {
            var bytes: [UInt8]
            switch round % 3 {
            case 0:
                bytes = (0..<Int.random(in: 0...420, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                if !bytes.isEmpty, round % 2 == 0 { bytes[0] = 2 }
            case 1:
                bytes = good.bytes
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator)
                }
            default:
                bytes = Array(good.bytes.prefix(Int.random(in: 0...good.bytes.count, using: &generator)))
                bytes += (0..<Int.random(in: 0...8, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            }
            if bytes == good.bytes { untouched += 1 }
            do {
                let contents = try open(KeyBundle(bytes: bytes))
                #expect(bytes == good.bytes && contents.key == deviceKey, "round \(round) (seed \(generator.seed)): a changed bundle opened")
                opened += 1
            } catch {
                refusals[error.reason, default: 0] += 1
                #expect(![.storeLocked, .conflictingKey, .epochPurged, .epochOutOfRange, .envelopeMismatch].contains(error.reason), "round \(round)")
            }
            _ = try? KeyBundle(text: String(decoding: bytes, as: UTF8.self))
        }
        // Exactly the rounds that reproduced the bundle byte for byte opened; every other was refused.
        #expect(opened == untouched, "seed \(generator.seed)")
        // Both kinds of damage were met: wrong lengths, and edits caught by authentication.
        #expect(refusals[.malformedBundle, default: 0] > 0 && refusals[.bundleAuthenticationFailed, default: 0] > 0, "\(refusals)")
    }
}
