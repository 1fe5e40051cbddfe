import Testing
import PushSealCore

/// Key bundles (SPEC §16): sealing, the header, every check of §16.5 and the registration.
@Suite("Key bundle")
struct KeyBundleTests {
    let device = IdentityKeyPair.generate()
    let provider = IdentityKeyPair.generate()
    let key = ConversationKey.generate()
    let now: Int64 = 1_764_400_000

    func seal(
        conversation: String = "c1", epoch: Int64 = 1, notAfter: Int64? = 1_764_500_000, to device: IdentityKeyPair? = nil,
        from provider: IdentityKeyPair? = nil
    ) throws -> KeyBundle {
        try KeyBundle.seal(key, conversation: conversation, epoch: epoch, notAfter: notAfter, provider: provider ?? self.provider,
                           devicePublicKey: (device ?? self.device).publicKey)
    }

    func open(_ bundle: KeyBundle, pinned: [[UInt8]]? = nil, now: Int64? = nil) throws(KeyBundleError) -> ConversationKey {
        try bundle.open(device: device, pinnedProviderKeys: pinned ?? [provider.publicKey], now: now ?? self.now).key
    }

    @Test("seal then open gives the key; header fields round-trip; the text parses back")
    func roundTrip() throws {
        let bundle = try seal(conversation: "héllo", epoch: 7)
        #expect(try open(bundle) == key)
        #expect(try bundle.open(device: device, pinnedProviderKeys: [provider.publicKey], now: now).conversation == "héllo")
        #expect(!String(decoding: bundle.bytes, as: UTF8.self).contains("héllo"), "the conversation id is sealed")
        #expect(bundle.header.epoch == 7)
        #expect(bundle.header.notAfter == 1_764_500_000)
        #expect(bundle.header.keyID == key.id)
        #expect(bundle.header.deviceKeyID == device.deviceKeyID)
        #expect(bundle.header.providerKeyID == provider.providerKeyID)
        #expect(bundle.bytes.count == 145 + "héllo".utf8.count)
        #expect(try KeyBundle(text: bundle.text) == bundle)
        #expect(try seal().bytes != seal().bytes, "a fresh ephemeral key per bundle")
        let noLimit = try seal(notAfter: nil)
        #expect(noLimit.header.notAfter == nil)
        #expect(Array(noLimit.bytes[41..<49]) == [UInt8](repeating: 0xff, count: 8))
        #expect(try open(noLimit, now: Int64.max) == key)
    }

    @Test("identifiers are HKDF-Expand of the public key with their own labels")
    func identifiers() throws {
        #expect(KeyBundle.deviceKeyID(of: device.publicKey) != KeyBundle.providerKeyID(of: device.publicKey))
        let copy = try device.withUnsafePrivateKeyBytes { try IdentityKeyPair(privateKeyBytes: $0) }
        #expect(copy.publicKey == device.publicKey)
        #expect(throws: WireFormatError.incorrectKeySize(expected: 32, actual: 31)) { try IdentityKeyPair(privateKeyBytes: [UInt8](repeating: 1, count: 31)) }
    }

    @Test("steps 1–3: text, version before length, header ranges")
    func parsing() throws {
        let good = try seal().bytes
        func reason(_ bytes: [UInt8]) -> KeyBundleReason? {
            do { _ = try KeyBundle(bytes: bytes); return nil } catch { return error.reason }
        }
        func textReason(_ text: String) -> KeyBundleReason? {
            do { _ = try KeyBundle(text: text); return nil } catch { return error.reason }
        }
        #expect(textReason("") == .malformedBundle)
        #expect(textReason(Base64URL.encode(good) + "=") == .malformedBundle)
        #expect(textReason(String(repeating: "A", count: KeyBundle.maximumTextLength + 1)) == .malformedBundle)
        #expect(reason([]) == .malformedBundle)
        #expect(reason([2]) == .unsupportedBundleVersion)
        #expect(reason([0] + good.dropFirst()) == .unsupportedBundleVersion)
        #expect(reason(Array(good.prefix(145))) == .malformedBundle, "n = 0")
        #expect(reason(Array(good.prefix(64))) == .malformedBundle)
        #expect(reason(good + [UInt8](repeating: 0, count: 256)) == .malformedBundle, "n = 258")
        #expect(reason(Array(good.dropLast())) == nil, "a shorter n parses; authentication decides")
        var edited = good
        for i in 33..<41 { edited[i] = 0 }
        #expect(reason(edited) == .malformedBundle, "epoch 0")
        edited = good
        edited[33] = 0x80
        #expect(reason(edited) == .malformedBundle, "epoch above 2^63 - 1")
        edited = good
        edited[41] = 0xff
        #expect(reason(edited) == .malformedBundle, "notAfter above 2^63 - 1, not all ones")
        #expect(reason(good) == nil)
    }

    @Test("steps 4–9: wrong device, unknown provider, forged, tampered, small-order enc, kid mismatch, expired")
    func checks() throws {
        let bundle = try seal()
        let other = IdentityKeyPair.generate()
        #expect(throws: KeyBundleError.wrongDevice(other.deviceKeyID)) { try open(seal(to: other)) }
        #expect(throws: KeyBundleError.unknownProvider(provider.providerKeyID)) { try open(bundle, pinned: [IdentityKeyPair.generate().publicKey]) }
        #expect(throws: KeyBundleError.unknownProvider(provider.providerKeyID)) { try open(bundle, pinned: []) }
        #expect(try open(bundle, pinned: [IdentityKeyPair.generate().publicKey, provider.publicKey]) == key)
        // Forged: another key seals a bundle whose header names the pinned provider key.
        let forger = IdentityKeyPair.generate()
        let forgedBundle = try seal(from: forger)
        var forged = forgedBundle.bytes
        forged.replaceSubrange(1..<17, with: provider.providerKeyID.bytes)
        #expect(throws: KeyBundleError.bundleAuthenticationFailed) { try open(KeyBundle(bytes: forged)) }
        var providerID = bundle.bytes
        providerID[1] ^= 1
        #expect(throws: KeyBundleError.unknownProvider(KeyID(bytes: providerID[1..<17])!)) { try open(KeyBundle(bytes: providerID)) }
        var deviceID = bundle.bytes
        deviceID[17] ^= 1
        #expect(throws: KeyBundleError.wrongDevice(KeyID(bytes: deviceID[17..<33])!)) { try open(KeyBundle(bytes: deviceID)) }
        // Every other byte is authenticated: epoch, notAfter, kid, enc, sealed key and cid, tag.
        for offset in 33..<bundle.bytes.count {
            var tampered = bundle.bytes
            tampered[offset] ^= 0x01
            guard let parsed = try? KeyBundle(bytes: tampered) else { continue }  // e.g. epoch 0 or notAfter out of range
            #expect(throws: KeyBundleError.bundleAuthenticationFailed, "offset \(offset)") { try open(parsed) }
        }
        var smallOrder = bundle.bytes
        smallOrder.replaceSubrange(65..<97, with: [UInt8](repeating: 0, count: 32))
        #expect(throws: KeyBundleError.bundleAuthenticationFailed) { try open(KeyBundle(bytes: smallOrder)) }
        #expect(throws: KeyBundleError.bundleAuthenticationFailed) { try open(KeyBundle(bytes: bundle.bytes + [0x41])) }
        #expect(throws: KeyBundleError.bundleExpired(notAfter: 1_764_500_000, now: 1_764_500_001)) { try open(bundle, now: 1_764_500_001) }
        #expect(try open(bundle, now: 1_764_500_000) == key, "now == notAfter is live")
    }

    @Test("steps 7–8: a sealed cid that is not UTF-8, and one key sealed under another key's kid, are caught after opening")
    func afterOpening() throws {
        let other = ConversationKey.generate()
        let header = try KeyBundleHeader(providerKeyID: provider.providerKeyID, deviceKeyID: device.deviceKeyID, epoch: 1, notAfter: nil, keyID: key.id)
        let mismatch = try KeyBundle.seal(other, header: header, conversationBytes: Array("c1".utf8), sender: provider,
                                          devicePublicKey: device.publicKey, ephemeral: nil).bundle
        #expect(throws: KeyBundleError.kidMismatch) { try open(mismatch) }
        let notUTF8 = try KeyBundle.seal(key, header: header, conversationBytes: [0x63, 0xc3], sender: provider,
                                         devicePublicKey: device.publicKey, ephemeral: nil).bundle
        #expect(throws: KeyBundleError.malformedBundle("the sealed conversation id is not valid UTF-8")) { try open(notUTF8) }
    }

    @Test("steps 10–11: installation is idempotent and refuses conflicts")
    func installation() throws {
        let header = try seal().header
        #expect(try KeyBundle.installation(of: header, conversation: "c1", storedUnderKeyID: nil, storedForEpoch: nil) == .installed)
        #expect(try KeyBundle.installation(of: header, conversation: "c1", storedUnderKeyID: ("c1", 1), storedForEpoch: key.id) == .alreadyInstalled)
        #expect(throws: KeyBundleError.self) { try KeyBundle.installation(of: header, conversation: "c1", storedUnderKeyID: ("c1", 2), storedForEpoch: nil) }
        #expect(throws: KeyBundleError.self) { try KeyBundle.installation(of: header, conversation: "c1", storedUnderKeyID: ("c2", 1), storedForEpoch: nil) }
        do {
            _ = try KeyBundle.installation(of: header, conversation: "c1", storedUnderKeyID: nil, storedForEpoch: ConversationKey.generate().id)
            Issue.record("a different key for (cid, epoch) must conflict")
        } catch {
            #expect(error.reason == .conflictingKey)
        }
    }

    @Test("sealing refuses out-of-range fields and unusable device keys, producing nothing")
    func sealingRefusals() throws {
        #expect(throws: KeyBundleSealingError.self) { try seal(epoch: 0) }
        #expect(throws: KeyBundleSealingError.self) { try seal(conversation: "") }
        #expect(throws: KeyBundleSealingError.self) { try seal(conversation: String(repeating: "x", count: 257)) }
        #expect(throws: KeyBundleSealingError.self) { try seal(notAfter: -1) }
        #expect(try seal(conversation: String(repeating: "x", count: 256)).text.count == KeyBundle.maximumTextLength)
        #expect(throws: KeyBundleSealingError.self) {
            try KeyBundle.seal(key, conversation: "c", epoch: 1, notAfter: nil, provider: provider, devicePublicKey: [UInt8](repeating: 0, count: 32))
        }
        #expect(throws: KeyBundleSealingError.self) {
            try KeyBundle.seal(key, conversation: "c", epoch: 1, notAfter: nil, provider: provider, devicePublicKey: [1, 2, 3])
        }
    }

    @Test("every error reports its own reason code")
    func reasonCodes() {
        let errors: [KeyBundleError] = [
            .malformedBundle(""), .unsupportedBundleVersion(2), .wrongDevice(key.id), .unknownProvider(key.id), .bundleAuthenticationFailed,
            .kidMismatch, .bundleExpired(notAfter: 0, now: 1), .conflictingKey(""), .storeLocked(""),
        ]
        #expect(errors.map(\.reason) == KeyBundleReason.allCases)
        #expect(Set(KeyBundleReason.allCases.map(\.rawValue)).count == 9)
        #expect(KeyBundleReason.storeLocked.rawValue == ReasonCode.storeLocked.rawValue)
    }

    @Test("registration JSON round-trips and is checked")
    func registration() throws {
        let registration = try DeviceRegistration(publicKey: device.publicKey)
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
        var generator = SystemRandomNumberGenerator()
        let good = try seal(conversation: "conversation-1")
        var opened = 0
        for round in 0..<3_000 {
            var bytes: [UInt8]
            switch round % 3 {
            case 0:
                bytes = (0..<Int.random(in: 0...420, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                if !bytes.isEmpty, round % 2 == 0 { bytes[0] = 1 }
            case 1:
                bytes = good.bytes
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator)
                }
            default:
                bytes = Array(good.bytes.prefix(Int.random(in: 0...good.bytes.count, using: &generator)))
                bytes += (0..<Int.random(in: 0...8, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            }
            do {
                let key = try open(KeyBundle(bytes: bytes))
                #expect(bytes == good.bytes && key == self.key, "round \(round): a changed bundle opened")
                opened += 1
            } catch {
                #expect(error.reason != .storeLocked && error.reason != .conflictingKey, "round \(round)")
            }
            _ = try? KeyBundle(text: String(decoding: bytes, as: UTF8.self))
        }
        #expect(opened <= 1_000)
    }
}

