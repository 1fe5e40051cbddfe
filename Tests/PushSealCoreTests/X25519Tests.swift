import Testing
import PushSealCore

/// X25519 on the primitives seam: RFC 7748's known answers, key generation and every refusal.
@Suite("X25519")
struct X25519Tests {
    @Test("RFC 7748 §6.1: both public keys and the shared secret")
    func rfc7748() throws {
        let alice = SecretKey(bytes: hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"))
        let bob = SecretKey(bytes: hex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb"))
        let alicePublic = try X25519.publicKey(for: alice)
        let bobPublic = try X25519.publicKey(for: bob)
        #expect(alicePublic == hex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"))
        #expect(bobPublic == hex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"))
        let expected = hex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742")
        #expect(try X25519.sharedSecret(privateKey: alice, publicKey: bobPublic).withUnsafeBytes { Array($0) } == expected)
        #expect(try X25519.sharedSecret(privateKey: bob, publicKey: alicePublic).withUnsafeBytes { Array($0) } == expected)
    }

    @Test("generated keys agree, and differ from each other")
    func generatedKeysAgree() throws {
        let a = X25519.generatePrivateKey()
        let b = X25519.generatePrivateKey()
        #expect(a.byteCount == 32)
        #expect(a != b)
        let ab = try X25519.sharedSecret(privateKey: a, publicKey: X25519.publicKey(for: b))
        let ba = try X25519.sharedSecret(privateKey: b, publicKey: X25519.publicKey(for: a))
        #expect(ab == ba)
        #expect(try X25519.publicKey(for: a) != X25519.publicKey(for: b))
    }

    @Test("small-order public keys give the all-zero secret, which is refused", arguments: [
        "0000000000000000000000000000000000000000000000000000000000000000",  // 0
        "0100000000000000000000000000000000000000000000000000000000000000",  // 1
        "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",  // order 8
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  // p - 1
    ])
    func smallOrderRefused(publicKey: String) {
        let key = X25519.generatePrivateKey()
        #expect(throws: PrimitiveError.zeroSharedSecret) { try X25519.sharedSecret(privateKey: key, publicKey: hex(publicKey)) }
        #expect(X25519.isSmallOrder(hex(publicKey)))
    }

    @Test("isSmallOrder: false for 64 public keys and their top-bit variants; true for the order-8 point with its top bit set")
    func isSmallOrderOnlyForSmallOrder() throws {
        for round in 0..<64 {
            let privateKey = SecretKey(bytes: (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ round &* 11 &+ 1) })
            var publicKey = try X25519.publicKey(for: privateKey)
            #expect(!X25519.isSmallOrder(publicKey))
            publicKey[31] |= 0x80  // the top bit is ignored (RFC 7748 §5): the same point
            #expect(!X25519.isSmallOrder(publicKey))
        }
        // The order-8 point with the top bit set is still small order.
        var order8 = hex("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800")
        order8[31] |= 0x80
        #expect(X25519.isSmallOrder(order8))
    }

    @Test("keys that are not 32 bytes are refused", arguments: [0, 31, 33])
    func wrongSizes(count: Int) throws {
        let good = X25519.generatePrivateKey()
        let goodPublic = try X25519.publicKey(for: good)
        #expect(throws: PrimitiveError.incorrectKeySize(expected: 32, actual: count)) {
            try X25519.sharedSecret(privateKey: good, publicKey: [UInt8](repeating: 9, count: count))
        }
        let short = SecretKey(bytes: [UInt8](repeating: 7, count: count))
        #expect(throws: PrimitiveError.incorrectKeySize(expected: 32, actual: count)) {
            try X25519.sharedSecret(privateKey: short, publicKey: goodPublic)
        }
        #expect(throws: PrimitiveError.incorrectKeySize(expected: 32, actual: count)) { try X25519.publicKey(for: short) }
    }
}
