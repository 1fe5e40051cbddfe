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
            let key = SymmetricKey(bytes: hex(test["key"] as! String))
            let nonce = hex(test["iv"] as! String)
            let aad = hex(test["aad"] as! String)
            let message = hex(test["msg"] as! String)
            let ciphertext = hex(test["ct"] as! String)
            let tag = hex(test["tag"] as! String)
            let valid = test["result"] as! String == "valid"
            let opened = Result { try ChaChaPoly.open(ciphertext + tag, using: key, nonce: nonce, authenticating: aad) }
            if valid {
                #expect(try opened.get() == message, "tcId \(id): open")
                #expect(try ChaChaPoly.seal(message, using: key, nonce: nonce, authenticating: aad) == ciphertext + tag, "tcId \(id): seal")
            } else {
                #expect(throws: CryptoError.self, "tcId \(id) must be rejected") { try opened.get() }
                if nonce.count != ChaChaPoly.nonceByteCount {
                    #expect(throws: CryptoError.incorrectNonceSize(expected: 12, actual: nonce.count)) {
                        try ChaChaPoly.seal(message, using: key, nonce: nonce, authenticating: aad)
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
            let ikm = SymmetricKey(bytes: hex(test["ikm"] as! String))
            let salt = hex(test["salt"] as! String)
            let info = hex(test["info"] as! String)
            let size = test["size"] as! Int
            let prk = HKDFSHA256.extract(salt: salt, inputKeyMaterial: ikm)
            let result = Result { try HKDFSHA256.expand(pseudoRandomKey: prk, info: info, outputByteCount: size) }
            if test["result"] as! String == "valid" {
                let okm = try result.get().withUnsafeBytes { Array($0) }
                #expect(okm == hex(test["okm"] as! String), "tcId \(id)")
            } else {
                #expect(throws: CryptoError.invalidOutputLength(size), "tcId \(id)") { try result.get() }
            }
            ran += 1
        }
        #expect(ran == file.numberOfTests)
        #expect(ran == 86)
    }

    @Test("HMAC-SHA256: all 174 cases")
    func hmac() throws {
        let file = try WycheproofFile(named: "hmac_sha256_test.json")
        var ran = 0
        for (group, test) in file.cases {
            let id = test["tcId"] as! Int
            let tagBytes = (group["tagSize"] as! Int) / 8
            let key = SymmetricKey(bytes: hex(test["key"] as! String))
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
