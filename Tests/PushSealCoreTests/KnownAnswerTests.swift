import Testing
import PushSealCore

/// Known answers from the RFCs, independent of the Wycheproof files.
@Suite("RFC known answers")
struct KnownAnswerTests {
    @Test("RFC 8439 §2.8.2 AEAD example")
    func rfc8439() throws {
        let key = SecretKey(bytes: hex("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"))
        let nonce = hex("070000004041424344454647")
        let aad = hex("50515253c0c1c2c3c4c5c6c7")
        let plaintext = Array("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8)
        let expected = hex(
            "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc3ff4def08e4b7a9de576d26586cec64b6116"
            + "1ae10b594f09e26a7e902ecbd0600691")
        let sealed = try ChaCha20Poly1305.seal(plaintext, using: key, nonce: nonce, authenticating: aad)
        #expect(sealed == expected)
        #expect(try ChaCha20Poly1305.open(sealed, using: key, nonce: nonce, authenticating: aad) == plaintext)
        var tampered = sealed
        tampered[0] ^= 1
        #expect(throws: PrimitiveError.authenticationFailure) { try ChaCha20Poly1305.open(tampered, using: key, nonce: nonce, authenticating: aad) }
    }

    @Test("RFC 5869 A.1–A.3", arguments: [
        ("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "000102030405060708090a0b0c", "f0f1f2f3f4f5f6f7f8f9", 42,
         "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5",
         "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"),
        ("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f",
         "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeaf",
         "b0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff", 82,
         "06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244",
         "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87"),
        ("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "", "", 42,
         "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04",
         "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"),
    ])
    func rfc5869(ikm: String, salt: String, info: String, length: Int, prk: String, okm: String) throws {
        let derivedPRK = HKDFSHA256.extract(salt: hex(salt), inputKeyMaterial: SecretKey(bytes: hex(ikm)))
        #expect(derivedPRK.withUnsafeBytes { Array($0) } == hex(prk))
        let derivedOKM = try HKDFSHA256.expand(pseudoRandomKey: derivedPRK, info: hex(info), outputByteCount: length)
        #expect(derivedOKM.withUnsafeBytes { Array($0) } == hex(okm))
    }

    @Test("HKDF-Expand refuses more than 255 blocks and negative lengths")
    func expandLimits() throws {
        let prk = SecretKey.random()
        #expect(try HKDFSHA256.expand(pseudoRandomKey: prk, info: [], outputByteCount: 8160).byteCount == 8160)
        #expect(throws: PrimitiveError.invalidOutputLength(8161)) { try HKDFSHA256.expand(pseudoRandomKey: prk, info: [], outputByteCount: 8161) }
        #expect(throws: PrimitiveError.invalidOutputLength(-1)) { try HKDFSHA256.expand(pseudoRandomKey: prk, info: [], outputByteCount: -1) }
    }

    @Test("Conversation key derivations match the generic HKDF-Expand")
    func conversationKeyDerivations() throws {
        let raw = hex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
        let key = try ConversationKey(rawBytes: raw)
        let generic = try HKDFSHA256.expand(pseudoRandomKey: SecretKey(bytes: raw), info: Array("pushseal v1 key id".utf8), outputByteCount: 16)
        #expect(key.id.bytes == generic.withUnsafeBytes { Array($0) })
        let thread = try HKDFSHA256.expand(pseudoRandomKey: SecretKey(bytes: raw), info: Array("pushseal v1 thread id".utf8), outputByteCount: 16)
        #expect(key.opaqueThreadID == Base64URL.encode(thread.withUnsafeBytes { Array($0) }))
    }
}
