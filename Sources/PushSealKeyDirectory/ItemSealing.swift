import PushSealCore

/// How keys are sealed at rest under the store master key `MK` (32 bytes), and the other values
/// derived from `MK`. Docs/KEY-STORE.md §3 is the normative description of this file.
///
/// ```
/// s    = 24 fresh random bytes per row
/// ik   = HKDF-Expand-SHA256(MK, "pushseal v1 store item" || s, 32)
/// AD   = 0x02 || kid(16) || int64be(epoch) || int64be(created_at) || not_after (1 + 8 bytes)
///        || uint32be(len(conversation)) || conversation || label (1 + 4 + len bytes)
/// blob = 0x02 || s || ChaCha20-Poly1305(ik, nonce = 12 zero bytes, aad = AD, K)     (73 bytes)
/// ```
///
/// Every column of the row is in AD, so no edit of the file can change which key is selected,
/// or what is shown about it, without the row failing to unseal (format 1, before file format
/// version 2, bound kid, epoch and conversation only; it is read only to migrate).
package enum ItemSealing {
    /// Format tag of a sealed item (first byte of the blob and of its associated data).
    package static let itemFormat: UInt8 = 0x02
    /// Format tag of items sealed by file format version 1 (read only while migrating).
    package static let itemFormatVersion1: UInt8 = 0x01
    /// Format tag of the master-key verifier.
    package static let verifierFormat: UInt8 = 0x01
    /// Salt length.
    package static let saltByteCount = 24
    /// Length of a sealed item: tag byte, salt, sealed K, AEAD tag.
    package static let sealedByteCount = 1 + saltByteCount + ConversationKey.byteCount + ChaCha20Poly1305.tagByteCount
    /// Length of the verifier: tag byte, salt, check value.
    package static let verifierByteCount = 1 + saltByteCount + 32

    package static let itemInfo: [UInt8] = Array("pushseal v1 store item".utf8)
    package static let verifierInfo: [UInt8] = Array("pushseal v1 store verifier".utf8)
    package static let deliveryLogInfo: [UInt8] = Array("pushseal v1 store delivery log".utf8)
    package static let epochRecordInfo: [UInt8] = Array("pushseal v1 store epoch record".utf8)
    /// Format tag of an epoch record's authenticated message.
    package static let epochRecordFormat: UInt8 = 0x01

    private static let zeroNonce = [UInt8](repeating: 0, count: ChaCha20Poly1305.nonceByteCount)

    /// Every column of a `keys` row except the sealed key itself: what the sealed key is bound to.
    package struct Binding: Equatable {
        package var keyID: [UInt8]
        /// The conversation's exact UTF-8 bytes.
        package var conversation: [UInt8]
        package var epoch: Int64
        package var createdAt: Int64
        package var notAfter: Int64?
        /// The label's exact UTF-8 bytes, nil when the row has none.
        package var label: [UInt8]?

        /// The binding of `item`.
        package init(_ item: KeyItem) {
            self.init(
                keyID: item.keyID.bytes, conversation: Array(item.conversation.utf8), epoch: item.epoch,
                createdAt: item.createdAt, notAfter: item.notAfter, label: item.label.map { Array($0.utf8) })
        }

        package init(keyID: [UInt8], conversation: [UInt8], epoch: Int64, createdAt: Int64, notAfter: Int64?, label: [UInt8]?) {
            self.keyID = keyID
            self.conversation = conversation
            self.epoch = epoch
            self.createdAt = createdAt
            self.notAfter = notAfter
            self.label = label
        }

        /// The associated data of format 2: fixed-size fields first, then the two
        /// length-prefixed ones, each optional field behind a presence byte (injective).
        package var associatedData: [UInt8] {
            var ad: [UInt8] = []
            ad.reserveCapacity(1 + keyID.count + 8 + 8 + 9 + 4 + conversation.count + 5 + (label?.count ?? 0))
            ad.append(itemFormat)
            ad += keyID
            append(UInt64(bitPattern: epoch), to: &ad)
            append(UInt64(bitPattern: createdAt), to: &ad)
            ad.append(notAfter == nil ? 0 : 1)
            append(UInt64(bitPattern: notAfter ?? 0), to: &ad)
            append(UInt32(truncatingIfNeeded: conversation.count), to: &ad)
            ad += conversation
            ad.append(label == nil ? 0 : 1)
            append(UInt32(truncatingIfNeeded: label?.count ?? 0), to: &ad)
            ad += label ?? []
            return ad
        }

        /// The associated data of format 1 (file format version 1): kid, epoch, conversation.
        package var associatedDataVersion1: [UInt8] {
            var ad: [UInt8] = [itemFormatVersion1]
            ad += keyID
            append(UInt64(bitPattern: epoch), to: &ad)
            append(UInt32(truncatingIfNeeded: conversation.count), to: &ad)
            ad += conversation
            return ad
        }
    }

    /// Seals `key` for the row `binding` with a fresh salt (`salt` only for test vectors). The
    /// binding's kid must be the key's own: unsealing trusts the kid the AEAD authenticates.
    package static func seal(_ key: ConversationKey, binding: Binding, masterKey: MasterKey, salt: [UInt8]? = nil) -> [UInt8] {
        precondition(binding.keyID == key.id.bytes, "a key is sealed only under its own key id")
        let salt = salt ?? HedgedRandom.bytes(count: saltByteCount, label: "at-rest salt")
        let itemKey = derive(masterKey, info: itemInfo, salt: salt)
        let ad = binding.associatedData
        return key.withUnsafeBytes { sealAtRest($0, format: itemFormat, salt: salt, rowKey: itemKey, associatedData: ad) }
    }

    /// The at-rest blob of every sealed row (keys here, identities in ``IdentitySealing``):
    /// `format || salt || ChaCha20-Poly1305(rowKey, nonce = 12 zero bytes, aad, secret)`. The zero
    /// nonce is safe because each row key is derived from a fresh salt.
    package static func sealAtRest(
        _ secret: UnsafeRawBufferPointer, format: UInt8, salt: [UInt8], rowKey: SecretKey, associatedData ad: [UInt8]
    ) -> [UInt8] {
        var blob = [format] + salt + [UInt8](repeating: 0, count: secret.count + ChaCha20Poly1305.tagByteCount)
        blob.withUnsafeMutableBytes { out in
            let sealed = UnsafeMutableRawBufferPointer(rebasing: out[(1 + salt.count)...])
            rowKey.withUnsafeBytes { k in
                zeroNonce.withUnsafeBytes { nonce in
                    ad.withUnsafeBytes { aad in
                        ChaCha20Poly1305.sealDetachedInPlace(output: sealed, plaintext: secret, key: k, nonce: nonce, authenticatedData: aad)
                    }
                }
            }
        }
        return blob
    }

    /// Opens the ciphertext and tag after a ``sealAtRest(_:format:salt:rowKey:associatedData:)``
    /// blob's `1 + saltByteCount` header bytes into zeroing storage of `count` bytes; nil when it
    /// does not authenticate (the caller checks format and length first).
    package static func openAtRest(_ blob: [UInt8], count: Int, rowKey: SecretKey, associatedData ad: [UInt8]) -> SecureBytes? {
        var opened = false
        let storage = SecureBytes(count: count) { output in
            opened = blob.withUnsafeBytes { raw in
                rowKey.withUnsafeBytes { k in
                    zeroNonce.withUnsafeBytes { nonce in
                        ad.withUnsafeBytes { aad in
                            // On failure the output is left zeroed.
                            ChaCha20Poly1305.openInPlace(
                                output: output, ciphertextAndTag: UnsafeRawBufferPointer(rebasing: raw[(1 + saltByteCount)...]),
                                key: k, nonce: nonce, authenticatedData: aad)
                        }
                    }
                }
            }
        }
        return opened ? storage : nil
    }

    /// Opens a row's sealed key. Returns nil unless the blob is well formed and authenticates
    /// with every column of the row (`binding`). The kid is one of them, and ``seal(_:binding:masterKey:salt:)``
    /// binds only a key's own kid, so the key's id is the row's without deriving it again
    /// (Docs/KEY-STORE.md §3 gives the argument).
    package static func unseal(_ blob: [UInt8], binding: Binding, masterKey: MasterKey) -> ConversationKey? {
        guard let id = KeyID(bytes: binding.keyID),
              let storage = open(blob, format: itemFormat, associatedData: binding.associatedData, masterKey: masterKey)
        else { return nil }
        return try? ConversationKey(SecretKey(storage: storage), authenticatedID: id)
    }

    /// Opens a key sealed by file format version 1 (for the migration to version 2 only). Those
    /// rows were written by code that did not check the kid it bound, so the unsealed key must
    /// derive the row's kid (constant time).
    package static func unsealVersion1(_ blob: [UInt8], binding: Binding, masterKey: MasterKey) -> ConversationKey? {
        guard binding.keyID.count == KeyID.byteCount,
              let storage = open(blob, format: itemFormatVersion1, associatedData: binding.associatedDataVersion1, masterKey: masterKey),
              let key = try? ConversationKey(SecretKey(storage: storage))
        else { return nil }
        let matches = key.id.withUnsafeBytes { a in binding.keyID.withUnsafeBytes { b in SecureMemory.constantTimeEqual(a, b) } }
        return matches ? key : nil
    }

    /// The sealed key of a well-formed blob of `format` that authenticates with `ad`, in zeroing storage.
    private static func open(_ blob: [UInt8], format: UInt8, associatedData ad: [UInt8], masterKey: MasterKey) -> SecureBytes? {
        guard blob.count == sealedByteCount, blob[0] == format else { return nil }
        let itemKey = blob.withUnsafeBytes { masterKey.expand(info: itemInfo, salt: UnsafeRawBufferPointer(rebasing: $0[1...saltByteCount])) }
        return openAtRest(blob, count: ConversationKey.byteCount, rowKey: itemKey, associatedData: ad)
    }

    /// A fresh verifier for `masterKey`: 0x01 || s || HKDF-Expand(MK, "pushseal v1 store verifier" || s, 32)
    /// (`salt` only for test vectors).
    package static func makeVerifier(masterKey: MasterKey, salt: [UInt8]? = nil) -> [UInt8] {
        let salt = salt ?? HedgedRandom.bytes(count: saltByteCount, label: "at-rest salt")
        return [verifierFormat] + salt + checkValue(masterKey: masterKey, salt: salt)
    }

    /// Whether `verifier` is well formed. A malformed verifier means a damaged store, not a wrong key.
    package static func isWellFormedVerifier(_ verifier: [UInt8]) -> Bool {
        verifier.count == verifierByteCount && verifier[0] == verifierFormat
    }

    /// Whether `masterKey` is the key `verifier` was made with (constant-time comparison).
    package static func verify(_ verifier: [UInt8], masterKey: MasterKey) -> Bool {
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
    package static func deliveryLogKey(masterKey: MasterKey) -> SecretKey {
        derive(masterKey, info: deliveryLogInfo, salt: [])
    }

    /// The duplicate-log entry for (cid, mid):
    /// HMAC-SHA256(log key, uint32be(len cid) || cid || uint32be(len mid) || mid).
    package static func deliveryTag(conversation: String, messageID: String, logKey: SecretKey) -> [UInt8] {
        let cid = Array(conversation.utf8), mid = Array(messageID.utf8)
        var message: [UInt8] = []
        message.reserveCapacity(8 + cid.count + mid.count)
        append(UInt32(truncatingIfNeeded: cid.count), to: &message)
        message += cid
        append(UInt32(truncatingIfNeeded: mid.count), to: &message)
        message += mid
        return HMACSHA256.authenticationCode(for: message, using: logKey)
    }

    /// The duplicate-log file's id (Docs/KEY-STORE.md §2.1): HMAC-SHA256(log key,
    /// "pushseal v1 delivery log id"). It binds the file to the master key: a log whose header
    /// carries another id was written under another key and is reset, never trusted.
    package static func deliveryLogID(logKey: SecretKey) -> [UInt8] {
        HMACSHA256.authenticationCode(for: Array("pushseal v1 delivery log id".utf8), using: logKey)
    }

    /// The epoch-record key: HKDF-Expand(MK, "pushseal v1 store epoch record", 32).
    package static func epochRecordKey(masterKey: MasterKey) -> SecretKey {
        derive(masterKey, info: epochRecordInfo, salt: [])
    }

    /// The epoch record's tag: HMAC-SHA256(record key, 0x01 || uint32be(len cid) || cid ||
    /// int64be(epoch) || kid(16) || removed (one byte, 0 or 1)).
    package static func epochRecordTag(conversation: [UInt8], epoch: Int64, keyID: [UInt8], removed: Bool, recordKey: SecretKey) -> [UInt8] {
        var message: [UInt8] = [epochRecordFormat]
        message.reserveCapacity(1 + 4 + conversation.count + 8 + keyID.count + 1)
        append(UInt32(truncatingIfNeeded: conversation.count), to: &message)
        message += conversation
        append(UInt64(bitPattern: epoch), to: &message)
        message += keyID
        message.append(removed ? 1 : 0)
        return HMACSHA256.authenticationCode(for: message, using: recordKey)
    }

    /// The duplicate-log digest of an envelope: HMAC-SHA256(log key, 0x02 || E).
    package static func envelopeTag(_ envelope: [UInt8], logKey: SecretKey) -> [UInt8] {
        HMACSHA256.authenticationCode(for: [0x02] + envelope, using: logKey)
    }

    private static func checkValue(masterKey: MasterKey, salt: [UInt8]) -> [UInt8] {
        let value = derive(masterKey, info: verifierInfo, salt: salt)
        return value.withUnsafeBytes { Array($0) }
    }

    private static func derive(_ masterKey: MasterKey, info: [UInt8], salt: [UInt8]) -> SecretKey {
        salt.withUnsafeBytes { masterKey.expand(info: info, salt: $0) }
    }

    /// Appends `value` big-endian, without a temporary array.
    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes += $0 }
    }
}
