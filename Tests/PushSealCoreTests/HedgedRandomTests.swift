@_spi(Vectors) import PushSealCore
import Testing

/// Hedged randomness (SPEC §7.4): a replayed generator (a restored snapshot) still gives
/// different conversation keys, HPKE ephemeral keys and secret keys.
@Suite("Hedged randomness")
struct HedgedRandomTests {
    /// A generator that replays the same 32 bytes on every draw.
    static let replayed: @Sendable (UnsafeMutableRawBufferPointer) -> Void = { buffer in
        for index in buffer.indices { buffer[index] = UInt8(truncatingIfNeeded: index &* 37 &+ 11) }
    }

    @Test("with the generator replayed, two draws differ and neither is the generator's output")
    func replayedDrawsDiffer() {
        HedgedRandom.$entropyForTesting.withValue(Self.replayed) {
            let a = HedgedRandom.bytes(count: 24, label: "at-rest salt")
            let b = HedgedRandom.bytes(count: 24, label: "at-rest salt")
            var raw = [UInt8](repeating: 0, count: 32)
            raw.withUnsafeMutableBytes { Self.replayed($0) }
            #expect(a != b)
            #expect(a != Array(raw.prefix(24)) && b != Array(raw.prefix(24)))
            let long = HedgedRandom.bytes(count: 100, label: "test")
            #expect(long.count == 100 && Array(long[0..<32]) != Array(long[32..<64]), "each block its own HMAC")
        }
    }

    @Test("conversation keys, HPKE ephemeral keys (a bundle's enc) and secret keys differ under a replayed generator")
    func replayedSecretsDiffer() throws {
        try HedgedRandom.$entropyForTesting.withValue(Self.replayed) {
            #expect(ConversationKey.generate() != ConversationKey.generate())
            let a = HybridPublicKeyEncryption.KeyPair.generate(), b = HybridPublicKeyEncryption.KeyPair.generate()
            #expect(a.publicKey != b.publicKey)
            #expect(SecretKey.random() != SecretKey.random())
            let provider = IdentityKeyPair.generate(), device = IdentityKeyPair.generate()
            #expect(provider.publicKey != device.publicKey)
            let registration = try DeviceRegistration(publicKey: device.publicKey)
            let key = ConversationKey.generate()
            let first = try KeyBundle.seal(conversationKey: key, conversation: "c", epoch: 1, since: 0, retireBy: nil, expires: 10,
                                           provider: provider, device: registration)
            let second = try KeyBundle.seal(conversationKey: key, conversation: "c", epoch: 1, since: 0, retireBy: nil, expires: 10,
                                            provider: provider, device: registration)
            #expect(Array(first.bytes[17..<49]) != Array(second.bytes[17..<49]), "fresh enc per bundle")
        }
    }

    @Test("the labels separate purposes: the same replayed seed gives unrelated outputs per label")
    func labels() {
        HedgedRandom.$entropyForTesting.withValue(Self.replayed) {
            #expect(HedgedRandom.bytes(count: 32, label: "secret key") != HedgedRandom.bytes(count: 32, label: "at-rest salt"))
        }
    }
}
