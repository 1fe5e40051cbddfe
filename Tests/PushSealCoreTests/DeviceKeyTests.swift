@_spi(Vectors) import PushSealCore
import Testing

/// The device key derivation (SPEC §4.4): K_d = HKDF-Expand(K, "pushseal v1 device conversation
/// key" || deviceKeyId, 32).
@Suite("Device keys")
struct DeviceKeyTests {
    let root = try! ConversationKey(rawBytes: 0..<32)
    let deviceID = KeyID(bytes: 0xa0..<0xb0)!

    @Test("known answer (computed with Python's hmac): K_d, its kid and thread-id")
    func knownAnswer() {
        let deviceKey = root.deviceKey(for: deviceID)
        deviceKey.withUnsafeBytes { #expect(Hex.encode($0) == "d6226a1031708181c40a0e8ffb5639cceccc26adb193773b7652784b2caa127f") }
        #expect(deviceKey.id.hex == "f47c1f79f310cd719b7ba92fa008cf9b")
        #expect(deviceKey.opaqueThreadID == "xGgT1Ki7c_KoLeG1FkXZDw")
    }

    @Test("K_d is one HMAC block of the 51-byte info, the same as the generic HKDF-Expand")
    func singleBlock() throws {
        let info = ConversationKey.deviceKeyInfo + deviceID.bytes
        #expect(info.count == 51)
        let direct = HMACSHA256.authenticationCode(for: info + [1], using: root.secretKey)
        let expanded = try HKDFSHA256.expand(pseudoRandomKey: root.secretKey, info: info, outputByteCount: 32)
        root.deviceKey(for: deviceID).withUnsafeBytes { derived in
            #expect(Array(derived) == direct)
            expanded.withUnsafeBytes { #expect(Array(derived) == Array($0)) }
        }
    }

    @Test("domain separation: K_d is none of K's other derivations and no info string of the spec has its length or prefix")
    func domainSeparation() throws {
        let deviceKey = root.deviceKey(for: deviceID)
        let bytes = deviceKey.withUnsafeBytes { Array($0) }
        #expect(bytes != root.withUnsafeBytes { Array($0) })
        #expect(Array(bytes.prefix(16)) != root.id.bytes, "not K's kid")
        #expect(Array(bytes.prefix(16)) != root.opaqueThreadIDBytes, "not K's thread-id")
        var messageKey = [UInt8](repeating: 0, count: 32)
        let salt = Array(deviceID.bytes + deviceID.bytes.prefix(8))
        salt.withUnsafeBytes { s in messageKey.withUnsafeMutableBufferPointer { root.deriveMessageKey(salt: s, into: $0.baseAddress!) } }
        #expect(bytes != messageKey, "not a message key of K")
        let others = ["pushseal v1 key id", "pushseal v1 message key", "pushseal v1 thread id", "pushseal v1 device key id",
                      "pushseal v1 provider key id", "pushseal v1 key bundle 2"].map { Array($0.utf8) }
        for other in others {
            #expect(!other.starts(with: ConversationKey.deviceKeyInfo) && !ConversationKey.deviceKeyInfo.starts(with: other))
            #expect(other.count != 51)
        }
        // The only other info with a variable part: the message key's, 23 + 24 (salt) bytes.
        #expect(Array("pushseal v1 message key".utf8).count + Envelope.saltByteCount == 47)
    }

    @Test("two devices of one conversation get unrelated keys, kids and thread-ids; a new epoch changes all of them")
    func devicesDiffer() throws {
        let other = KeyID(bytes: 0xb0..<0xc0)!
        let a = root.deviceKey(for: deviceID), b = root.deviceKey(for: other)
        #expect(a != b)
        #expect(a.id != b.id)
        #expect(a.opaqueThreadID != b.opaqueThreadID)
        #expect(a.id != root.id && b.id != root.id)
        let next = ConversationKey.generate().deviceKey(for: deviceID)
        #expect(next != a && next.id != a.id)
        // Deterministic: the provider and the device derive the same key.
        #expect(root.deviceKey(for: deviceID) == a)
        // One flipped bit of the device key id gives another key.
        var flipped = deviceID.bytes
        flipped[15] ^= 1
        #expect(root.deviceKey(for: KeyID(bytes: flipped)!) != a)
    }

    @Test("a device key is a conversation key: an envelope sealed under K_d opens under K_d only")
    func envelopeUnderDeviceKey() throws {
        let a = root.deviceKey(for: deviceID)
        let content = try NotificationContent(conversationID: "c1", messageID: "m1", sentAt: 1, body: "hi").encoded()
        let envelope = Envelope.seal(content: content, with: a, paddedLength: 64, salt: [UInt8](repeating: 3, count: Envelope.saltByteCount))
        #expect(envelope.keyID == a.id)
        #expect(try envelope.open(with: a) == content)
        #expect(throws: (any Error).self) { try envelope.open(with: root) }
        #expect(throws: (any Error).self) { try envelope.open(with: root.deviceKey(for: KeyID(bytes: 0xb0..<0xc0)!)) }
    }
}
