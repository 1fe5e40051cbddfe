import Testing
import PushSealCore

/// Every case of the external Wycheproof suites for the primitives PushSeal is built from.
/// A missing file or a skipped case fails the test.
@Suite("Wycheproof")
struct WycheproofTests {
    @Test("ChaCha20-Poly1305: all 325 cases")
    func chaCha20Poly1305() throws {
        let file = try WycheproofFile(named: "chacha20_poly1305_test.json")
        #expect(file.schema == "aead_test_schema_v1.json")
        var ran = 0
        for (_, test) in file.cases {
            let id = test["tcId"] as! Int
            let key = SecretKey(bytes: hex(test["key"] as! String))
            let nonce = hex(test["iv"] as! String)
            let aad = hex(test["aad"] as! String)
            let message = hex(test["msg"] as! String)
            let ciphertext = hex(test["ct"] as! String)
            let tag = hex(test["tag"] as! String)
            let valid = test["result"] as! String == "valid"
            let opened = Result { try ChaCha20Poly1305.open(ciphertext + tag, using: key, nonce: nonce, authenticating: aad) }
            if valid {
                #expect(try opened.get() == message, "tcId \(id): open")
                #expect(try ChaCha20Poly1305.seal(message, using: key, nonce: nonce, authenticating: aad) == ciphertext + tag, "tcId \(id): seal")
            } else {
                #expect(throws: PrimitiveError.self, "tcId \(id) must be rejected") { try opened.get() }
                if nonce.count != ChaCha20Poly1305.nonceByteCount {
                    #expect(throws: PrimitiveError.incorrectNonceSize(expected: 12, actual: nonce.count)) {
                        try ChaCha20Poly1305.seal(message, using: key, nonce: nonce, authenticating: aad)
                    }
                }
            }
            ran += 1
        }
        #expect(ran == file.numberOfTests)
        #expect(ran == 325)
    }

    @Test("HKDF-SHA256: all 86 cases")
    func hkdf() throws {
        let file = try WycheproofFile(named: "hkdf_sha256_test.json")
        var ran = 0
        for (_, test) in file.cases {
            let id = test["tcId"] as! Int
            let ikm = SecretKey(bytes: hex(test["ikm"] as! String))
            let salt = hex(test["salt"] as! String)
            let info = hex(test["info"] as! String)
            let size = test["size"] as! Int
            let prk = HKDFSHA256.extract(salt: salt, inputKeyMaterial: ikm)
            let result = Result { try HKDFSHA256.expand(pseudoRandomKey: prk, info: info, outputByteCount: size) }
            if test["result"] as! String == "valid" {
                let okm = try result.get().withUnsafeBytes { Array($0) }
                #expect(okm == hex(test["okm"] as! String), "tcId \(id)")
            } else {
                #expect(throws: PrimitiveError.invalidOutputLength(size), "tcId \(id)") { try result.get() }
            }
            ran += 1
        }
        #expect(ran == file.numberOfTests)
        #expect(ran == 86)
    }

    @Test("X25519: all 518 cases, the 31 all-zero shared secrets refused")
    func x25519() throws {
        let file = try WycheproofFile(named: "x25519_test.json")
        #expect(file.schema == "xdh_comp_schema_v1.json")
        var ran = 0
        var refused = 0
        for (group, test) in file.cases {
            #expect(group["curve"] as? String == "curve25519")
            let id = test["tcId"] as! Int
            let privateKey = SecretKey(bytes: hex(test["private"] as! String))
            let publicKey = hex(test["public"] as! String)
            let shared = hex(test["shared"] as! String)
            let flags = test["flags"] as! [String]
            // Every case is "valid" or "acceptable" (twists, non-canonical and small-order public
            // keys): RFC 7748 computes them all. RFC 9180 §7.1.4 refuses the all-zero result.
            #expect(["valid", "acceptable"].contains(test["result"] as! String), "tcId \(id)")
            let result = Result { try X25519.sharedSecret(privateKey: privateKey, publicKey: publicKey) }
            // A zero secret happens exactly for small-order public keys, which isSmallOrder names.
            #expect(X25519.isSmallOrder(publicKey) == shared.allSatisfy({ $0 == 0 }), "tcId \(id)")
            if shared.allSatisfy({ $0 == 0 }) {
                #expect(flags.contains("ZeroSharedSecret"), "tcId \(id)")
                #expect(throws: PrimitiveError.zeroSharedSecret, "tcId \(id) must be refused") { try result.get() }
                refused += 1
            } else {
                #expect(try result.get().withUnsafeBytes { Array($0) } == shared, "tcId \(id)")
            }
            ran += 1
        }
        #expect(ran == file.numberOfTests)
        #expect(ran == 518)
        #expect(refused == 31)
    }

    @Test("HMAC-SHA256: all 174 cases")
    func hmac() throws {
        let file = try WycheproofFile(named: "hmac_sha256_test.json")
        var ran = 0
        for (group, test) in file.cases {
            let id = test["tcId"] as! Int
            let tagBytes = (group["tagSize"] as! Int) / 8
            let key = SecretKey(bytes: hex(test["key"] as! String))
            let message = hex(test["msg"] as! String)
            let tag = hex(test["tag"] as! String)
            let valid = test["result"] as! String == "valid"
            let computed = Array(HMACSHA256.authenticationCode(for: message, using: key).prefix(tagBytes))
            #expect((computed == tag) == valid, "tcId \(id): computed tag")
            #expect(HMACSHA256.isValidAuthenticationCode(tag, for: message, using: key) == valid, "tcId \(id): verify")
            ran += 1
        }
        #expect(ran == file.numberOfTests)
        #expect(ran == 174)
    }
}
