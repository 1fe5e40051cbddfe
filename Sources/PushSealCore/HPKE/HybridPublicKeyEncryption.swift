/// HPKE (RFC 9180) for the one suite PushSeal uses: DHKEM(X25519, HKDF-SHA256) (kem_id 0x0020),
/// HKDF-SHA256 (kdf_id 0x0001), ChaCha20Poly1305 (aead_id 0x0003); base and auth modes.
///
/// Written once above the primitives seam, from ``X25519``, ``HKDFSHA256`` and
/// ``ChaCha20Poly1305``, so the libsodium and CryptoKit backends share it and iOS 16 needs no
/// CryptoKit `HPKE`. Package-internal: the public API is the key bundle (``KeyBundle``). Every
/// intermediate secret (DH outputs, PRKs, the shared secret, the key schedule) is held in
/// ``SecretKey`` storage and zeroed when released; the concatenated DH input is wiped after use.
package enum HybridPublicKeyEncryption {
    /// The HPKE modes PushSeal implements (RFC 9180 §5).
    package enum Mode: UInt8, Sendable {
        /// mode_base: the recipient learns nothing about the sender.
        case base = 0x00
        /// mode_auth: the recipient checks that the sender held a given static private key.
        case auth = 0x02
    }

    /// An X25519 key pair.
    package struct KeyPair: Sendable {
        /// The 32-byte private key.
        package let privateKey: SecretKey
        /// The 32-byte public key.
        package let publicKey: [UInt8]

        /// The key pair of `privateKey`.
        package init(privateKey: SecretKey) throws(PrimitiveError) {
            self.privateKey = privateKey
            publicKey = try X25519.publicKey(for: privateKey)
        }

        /// A new key pair from the system CSPRNG.
        package static func generate() -> KeyPair {
            try! KeyPair(privateKey: X25519.generatePrivateKey())
        }
    }

    static let kemID: UInt16 = 0x0020
    static let kdfID: UInt16 = 0x0001
    static let aeadID: UInt16 = 0x0003
    /// Nsecret, Nk, Nn of the suite.
    static let secretByteCount = 32
    static let keyByteCount = ChaCha20Poly1305.keyByteCount
    static let nonceByteCount = ChaCha20Poly1305.nonceByteCount

    private static let version: [UInt8] = Array("HPKE-v1".utf8)
    /// "KEM" || I2OSP(kem_id, 2): the DHKEM's suite id.
    private static let kemSuiteID: [UInt8] = Array("KEM".utf8) + bigEndian(kemID)
    /// "HPKE" || I2OSP(kem_id, 2) || I2OSP(kdf_id, 2) || I2OSP(aead_id, 2).
    private static let hpkeSuiteID: [UInt8] = Array("HPKE".utf8) + bigEndian(kemID) + bigEndian(kdfID) + bigEndian(aeadID)

    private static func bigEndian(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    // MARK: - Labeled HKDF (RFC 9180 §4)

    /// LabeledExtract(salt, label, ikm) = Extract(salt, "HPKE-v1" || suite_id || label || ikm).
    static func labeledExtract(suiteID: [UInt8], salt: UnsafeRawBufferPointer, label: String, ikm: UnsafeRawBufferPointer) -> SecretKey {
        let label = Array(label.utf8)
        return version.withUnsafeBytes { v in
            suiteID.withUnsafeBytes { s in
                label.withUnsafeBytes { l in HKDFSHA256.extract(salt: salt, inputKeyMaterialParts: [v, s, l, ikm]) }
            }
        }
    }

    /// LabeledExpand(prk, label, info, L) = Expand(prk, I2OSP(L, 2) || "HPKE-v1" || suite_id || label || info, L).
    static func labeledExpand(
        suiteID: [UInt8], prk: SecretKey, label: String, info: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) {
        let length = bigEndian(UInt16(output.count))
        let label = Array(label.utf8)
        let keyed = prk.withUnsafeBytes { KeyedHMAC(key: $0) }
        length.withUnsafeBytes { n in
            version.withUnsafeBytes { v in
                suiteID.withUnsafeBytes { s in
                    label.withUnsafeBytes { l in HKDFSHA256.expand(keyed: keyed, infoParts: [n, v, s, l, info], into: output) }
                }
            }
        }
    }

    static func labeledExpandSecret(suiteID: [UInt8], prk: SecretKey, label: String, info: UnsafeRawBufferPointer, count: Int) -> SecretKey {
        SecretKey(storage: SecureBytes(count: count) { labeledExpand(suiteID: suiteID, prk: prk, label: label, info: info, into: $0) })
    }

    // MARK: - DHKEM(X25519, HKDF-SHA256) (RFC 9180 §4.1, §7.1.3)

    /// DeriveKeyPair(ikm): sk = LabeledExpand(LabeledExtract("", "dkp_prk", ikm), "sk", "", 32).
    /// Deterministic keys, for test vectors; real keys come from ``KeyPair/generate()``.
    package static func deriveKeyPair(inputKeyMaterial ikm: SecretKey) throws(PrimitiveError) -> KeyPair {
        let prk = ikm.withUnsafeBytes { labeledExtract(suiteID: kemSuiteID, salt: UnsafeRawBufferPointer(start: nil, count: 0), label: "dkp_prk", ikm: $0) }
        let sk = labeledExpandSecret(suiteID: kemSuiteID, prk: prk, label: "sk", info: UnsafeRawBufferPointer(start: nil, count: 0), count: X25519.byteCount)
        return try KeyPair(privateKey: sk)
    }

    /// ExtractAndExpand(dh, kem_context): the KEM shared secret. `dh` is one or two DH outputs.
    private static func extractAndExpand(dh: [SecretKey], kemContext: [UInt8]) -> SecretKey {
        var concatenated = [UInt8](repeating: 0, count: dh.count * X25519.byteCount)
        defer { concatenated.withUnsafeMutableBytes { SecureMemory.wipe($0) } }
        concatenated.withUnsafeMutableBytes { out in
            for (index, secret) in dh.enumerated() {
                secret.withUnsafeBytes { (out.baseAddress! + index * X25519.byteCount).copyMemory(from: $0.baseAddress!, byteCount: X25519.byteCount) }
            }
        }
        let prk = concatenated.withUnsafeBytes {
            labeledExtract(suiteID: kemSuiteID, salt: UnsafeRawBufferPointer(start: nil, count: 0), label: "eae_prk", ikm: $0)
        }
        return kemContext.withUnsafeBytes {
            labeledExpandSecret(suiteID: kemSuiteID, prk: prk, label: "shared_secret", info: $0, count: secretByteCount)
        }
    }

    /// Encap / AuthEncap: the shared secret and enc (the ephemeral public key).
    private static func encapsulate(
        recipientPublicKey: [UInt8], sender: KeyPair?, ephemeral: KeyPair
    ) throws(PrimitiveError) -> (sharedSecret: SecretKey, enc: [UInt8]) {
        var dh = [try X25519.sharedSecret(privateKey: ephemeral.privateKey, publicKey: recipientPublicKey)]
        var kemContext = ephemeral.publicKey + recipientPublicKey
        if let sender {
            dh.append(try X25519.sharedSecret(privateKey: sender.privateKey, publicKey: recipientPublicKey))
            kemContext += sender.publicKey
        }
        return (extractAndExpand(dh: dh, kemContext: kemContext), ephemeral.publicKey)
    }

    /// Decap / AuthDecap: the shared secret from enc and the recipient's key pair.
    private static func decapsulate(
        enc: [UInt8], recipient: KeyPair, senderPublicKey: [UInt8]?
    ) throws(PrimitiveError) -> SecretKey {
        var dh = [try X25519.sharedSecret(privateKey: recipient.privateKey, publicKey: enc)]
        var kemContext = enc + recipient.publicKey
        if let senderPublicKey {
            dh.append(try X25519.sharedSecret(privateKey: recipient.privateKey, publicKey: senderPublicKey))
            kemContext += senderPublicKey
        }
        return extractAndExpand(dh: dh, kemContext: kemContext)
    }

    // MARK: - Key schedule (RFC 9180 §5.1) and contexts

    /// An encryption context: the key schedule's outputs (RFC 9180 §5.1). The intermediates are
    /// kept for test vectors; all secret ones are zeroed when the context is released.
    package struct Context: Sendable {
        /// The KEM shared secret.
        package let sharedSecret: SecretKey
        /// mode || psk_id_hash || info_hash (not secret).
        package let keyScheduleContext: [UInt8]
        /// The key schedule's `secret`.
        package let secret: SecretKey
        /// The AEAD key.
        package let key: SecretKey
        /// The 12-byte base nonce (not secret on its own).
        package let baseNonce: [UInt8]
        /// The exporter secret.
        package let exporterSecret: SecretKey

        /// base_nonce XOR I2OSP(seq, 12).
        package func nonce(sequenceNumber: UInt64) -> [UInt8] {
            var nonce = baseNonce
            for index in 0..<8 { nonce[nonceByteCount - 1 - index] ^= UInt8(truncatingIfNeeded: sequenceNumber >> (8 * UInt64(index))) }
            return nonce
        }

        /// ContextS.Seal at `sequenceNumber` (single-shot use: 0).
        package func seal(_ plaintext: [UInt8], authenticating aad: [UInt8], sequenceNumber: UInt64 = 0) throws(PrimitiveError) -> [UInt8] {
            try ChaCha20Poly1305.seal(plaintext, using: key, nonce: nonce(sequenceNumber: sequenceNumber), authenticating: aad)
        }

        /// ContextR.Open at `sequenceNumber`; throws ``PrimitiveError/authenticationFailure``.
        /// The caller owns, and wipes, the plaintext.
        package func open(_ ciphertext: [UInt8], authenticating aad: [UInt8], sequenceNumber: UInt64 = 0) throws(PrimitiveError) -> [UInt8] {
            try ChaCha20Poly1305.open(ciphertext, using: key, nonce: nonce(sequenceNumber: sequenceNumber), authenticating: aad)
        }

        /// Context.Export(exporter_context, L) = LabeledExpand(exporter_secret, "sec", exporter_context, L).
        package func export(context: [UInt8], byteCount: Int) throws(PrimitiveError) -> SecretKey {
            guard byteCount >= 0, byteCount <= HKDFSHA256.maximumOutputByteCount else { throw .invalidOutputLength(byteCount) }
            return context.withUnsafeBytes {
                labeledExpandSecret(suiteID: hpkeSuiteID, prk: exporterSecret, label: "sec", info: $0, count: byteCount)
            }
        }
    }

    /// psk_id_hash = LabeledExtract("", "psk_id_hash", "") (constant: psk_id is always empty here).
    private static let pskIDHash: [UInt8] = {
        let none = UnsafeRawBufferPointer(start: nil, count: 0)
        return labeledExtract(suiteID: hpkeSuiteID, salt: none, label: "psk_id_hash", ikm: none).withUnsafeBytes { Array($0) }
    }()

    /// KeySchedule(mode, shared_secret, info, psk = "", psk_id = "").
    private static func keySchedule(mode: Mode, sharedSecret: SecretKey, info: [UInt8]) -> Context {
        let none = UnsafeRawBufferPointer(start: nil, count: 0)
        let infoHash = info.withUnsafeBytes { labeledExtract(suiteID: hpkeSuiteID, salt: none, label: "info_hash", ikm: $0) }
        let context = [mode.rawValue] + pskIDHash + infoHash.withUnsafeBytes { Array($0) }
        let secret = sharedSecret.withUnsafeBytes { labeledExtract(suiteID: hpkeSuiteID, salt: $0, label: "secret", ikm: none) }
        return context.withUnsafeBytes { ksc in
            var baseNonce = [UInt8](repeating: 0, count: nonceByteCount)
            baseNonce.withUnsafeMutableBytes { labeledExpand(suiteID: hpkeSuiteID, prk: secret, label: "base_nonce", info: ksc, into: $0) }
            return Context(
                sharedSecret: sharedSecret, keyScheduleContext: context, secret: secret,
                key: labeledExpandSecret(suiteID: hpkeSuiteID, prk: secret, label: "key", info: ksc, count: keyByteCount),
                baseNonce: baseNonce,
                exporterSecret: labeledExpandSecret(suiteID: hpkeSuiteID, prk: secret, label: "exp", info: ksc, count: secretByteCount))
        }
    }

    /// SetupBaseS / SetupAuthS: `sender` nil is mode_base, a sender key pair mode_auth.
    /// `ephemeral` is fresh unless given (deterministic test vectors only).
    package static func setupSender(
        recipientPublicKey: [UInt8], sender: KeyPair?, info: [UInt8], ephemeral: KeyPair? = nil
    ) throws(PrimitiveError) -> (enc: [UInt8], context: Context) {
        let (sharedSecret, enc) = try encapsulate(recipientPublicKey: recipientPublicKey, sender: sender, ephemeral: ephemeral ?? .generate())
        return (enc, keySchedule(mode: sender == nil ? .base : .auth, sharedSecret: sharedSecret, info: info))
    }

    /// SetupBaseR / SetupAuthR: `senderPublicKey` nil is mode_base, a public key mode_auth.
    package static func setupRecipient(
        enc: [UInt8], recipient: KeyPair, senderPublicKey: [UInt8]?, info: [UInt8]
    ) throws(PrimitiveError) -> Context {
        let sharedSecret = try decapsulate(enc: enc, recipient: recipient, senderPublicKey: senderPublicKey)
        return keySchedule(mode: senderPublicKey == nil ? .base : .auth, sharedSecret: sharedSecret, info: info)
    }
}
