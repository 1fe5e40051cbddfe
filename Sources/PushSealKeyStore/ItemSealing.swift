import PushSealCore

/// How keys are sealed at rest under the store master key `MK` (32 bytes), and the other values
/// derived from `MK`. Docs/KEY-STORE.md §3 is the normative description of this file.
///
/// ```
/// s    = 24 fresh random bytes per row
/// ik   = HKDF-Expand-SHA256(MK, "pushseal v1 store item" || s, 32)
/// AD   = 0x01 || kid(16) || int64be(epoch) || uint32be(len(conversation)) || conversation (UTF-8)
/// blob = 0x01 || s || ChaCha20-Poly1305(ik, nonce = 12 zero bytes, aad = AD, K)     (73 bytes)
/// ```
enum ItemSealing {
    /// Format tag of a sealed item (first byte of the blob and of its associated data).
    static let itemFormat: UInt8 = 0x01
    /// Format tag of the master-key verifier.
    static let verifierFormat: UInt8 = 0x01
    /// Salt length.
    static let saltByteCount = 24
    /// Length of a sealed item: tag byte, salt, sealed K, AEAD tag.
    static let sealedByteCount = 1 + saltByteCount + ConversationKey.byteCount + ChaCha20Poly1305.tagByteCount
    /// Length of the verifier: tag byte, salt, check value.
    static let verifierByteCount = 1 + saltByteCount + 32

    static let itemInfo: [UInt8] = Array("pushseal v1 store item".utf8)
    static let verifierInfo: [UInt8] = Array("pushseal v1 store verifier".utf8)
    static let deliveryLogInfo: [UInt8] = Array("pushseal v1 store delivery log".utf8)

    private static let zeroNonce = [UInt8](repeating: 0, count: ChaCha20Poly1305.nonceByteCount)

    /// The associated data binding a sealed key to its row.
    static func associatedData(keyID: [UInt8], conversation: [UInt8], epoch: Int64) -> [UInt8] {
        var ad: [UInt8] = [itemFormat]
        ad.reserveCapacity(1 + keyID.count + 8 + 4 + conversation.count)
        ad += keyID
        ad += bigEndian(UInt64(bitPattern: epoch))
        ad += bigEndian(UInt32(truncatingIfNeeded: conversation.count))
        ad += conversation
        return ad
    }

    /// Seals `key` for the row (key.id, conversation, epoch) with a fresh salt.
    static func seal(_ key: ConversationKey, conversation: String, epoch: Int64, masterKey: SecretKey) -> [UInt8] {
        let salt = SystemRandom.bytes(count: saltByteCount)
        let itemKey = derive(masterKey, info: itemInfo, salt: salt)
        let ad = associatedData(keyID: key.id.bytes, conversation: Array(conversation.utf8), epoch: epoch)
        var blob = [UInt8](repeating: 0, count: sealedByteCount)
        blob[0] = itemFormat
        blob.replaceSubrange(1...saltByteCount, with: salt)
        blob.withUnsafeMutableBytes { out in
            let sealed = UnsafeMutableRawBufferPointer(rebasing: out[(1 + saltByteCount)...])
            key.withUnsafeBytes { k in
                itemKey.withUnsafeBytes { ik in
                    zeroNonce.withUnsafeBytes { nonce in
                        ad.withUnsafeBytes { aad in
                            ChaCha20Poly1305.sealDetachedInPlace(output: sealed, plaintext: k, key: ik, nonce: nonce, authenticatedData: aad)
                        }
                    }
                }
            }
        }
        return blob
    }

    /// Opens a row's sealed key. Returns nil unless the blob is well formed, authenticates with
    /// the row's own kid, conversation and epoch, and the unsealed key has exactly that kid.
    static func unseal(_ blob: [UInt8], keyID: KeyID, conversation: [UInt8], epoch: Int64, masterKey: SecretKey) -> ConversationKey? {
        guard blob.count == sealedByteCount, blob[0] == itemFormat else { return nil }
        let salt = Array(blob[1...saltByteCount])
        let itemKey = derive(masterKey, info: itemInfo, salt: salt)
        let ad = associatedData(keyID: keyID.bytes, conversation: conversation, epoch: epoch)
        var opened = false
        let storage = SecureBytes(count: ConversationKey.byteCount) { output in
            opened = blob.withUnsafeBytes { raw in
                itemKey.withUnsafeBytes { ik in
                    zeroNonce.withUnsafeBytes { nonce in
                        ad.withUnsafeBytes { aad in
                            // On failure the output is left zeroed.
                            ChaCha20Poly1305.openInPlace(
                                output: output, ciphertextAndTag: UnsafeRawBufferPointer(rebasing: raw[(1 + saltByteCount)...]),
                                key: ik, nonce: nonce, authenticatedData: aad)
                        }
                    }
                }
            }
        }
        guard opened else { return nil }
        guard let key = try? ConversationKey(SecretKey(storage: storage)) else { return nil }
        // Key commitment at rest: the unsealed K must derive the row's kid (constant time).
        let matches = key.id.withUnsafeBytes { a in keyID.withUnsafeBytes { b in SecureMemory.constantTimeEqual(a, b) } }
        return matches ? key : nil
    }

    /// A fresh verifier for `masterKey`: 0x01 || s || HKDF-Expand(MK, "pushseal v1 store verifier" || s, 32).
    static func makeVerifier(masterKey: SecretKey) -> [UInt8] {
        let salt = SystemRandom.bytes(count: saltByteCount)
        return [verifierFormat] + salt + checkValue(masterKey: masterKey, salt: salt)
    }

    /// Whether `verifier` is well formed. A malformed verifier means a damaged store, not a wrong key.
    static func isWellFormedVerifier(_ verifier: [UInt8]) -> Bool {
        verifier.count == verifierByteCount && verifier[0] == verifierFormat
    }

    /// Whether `masterKey` is the key `verifier` was made with (constant-time comparison).
    static func verify(_ verifier: [UInt8], masterKey: SecretKey) -> Bool {
        guard isWellFormedVerifier(verifier) else { return false }
        let salt = Array(verifier[1...saltByteCount])
        let expected = checkValue(masterKey: masterKey, salt: salt)
        return expected.withUnsafeBytes { e in
            verifier.withUnsafeBytes { v in
                SecureMemory.constantTimeEqual(e, UnsafeRawBufferPointer(rebasing: v[(1 + saltByteCount)...]))
            }
        }
    }

    /// The duplicate-log key: HKDF-Expand(MK, "pushseal v1 store delivery log", 32).
    static func deliveryLogKey(masterKey: SecretKey) -> SecretKey {
        derive(masterKey, info: deliveryLogInfo, salt: [])
    }

    /// The duplicate-log entry for (cid, mid):
    /// HMAC-SHA256(log key, uint32be(len cid) || cid || uint32be(len mid) || mid).
    static func deliveryTag(conversation: String, messageID: String, logKey: SecretKey) -> [UInt8] {
        let cid = Array(conversation.utf8), mid = Array(messageID.utf8)
        var message: [UInt8] = []
        message.reserveCapacity(8 + cid.count + mid.count)
        message += bigEndian(UInt32(truncatingIfNeeded: cid.count))
        message += cid
        message += bigEndian(UInt32(truncatingIfNeeded: mid.count))
        message += mid
        return HMACSHA256.authenticationCode(for: message, using: logKey)
    }

    private static func checkValue(masterKey: SecretKey, salt: [UInt8]) -> [UInt8] {
        let value = derive(masterKey, info: verifierInfo, salt: salt)
        return value.withUnsafeBytes { Array($0) }
    }

    private static func derive(_ masterKey: SecretKey, info: [UInt8], salt: [UInt8]) -> SecretKey {
        // 32 bytes are always within HKDF's range.
        try! HKDFSHA256.expand(pseudoRandomKey: masterKey, info: info + salt, outputByteCount: 32)
    }

    private static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }
}
