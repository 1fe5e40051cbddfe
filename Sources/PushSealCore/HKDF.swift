/// HKDF with SHA-256 (RFC 5869), on the primitives' HMAC-SHA256.
///
/// PushSeal itself uses only ``expand(pseudoRandomKey:info:outputByteCount:)`` with the
/// conversation key as PRK (RFC 5869 §3.3); ``extract(salt:inputKeyMaterial:)`` is here for
/// completeness, the known-answer tests and HPKE.
package enum HKDFSHA256 {
    /// The largest output HKDF-SHA256 can produce: 255 blocks of 32 bytes.
    package static let maximumOutputByteCount = 255 * HMACSHA256.byteCount

    /// HKDF-Extract: PRK = HMAC-SHA256(salt, IKM). An empty salt means 32 zero bytes.
    package static func extract(salt: some Sequence<UInt8>, inputKeyMaterial: SecretKey) -> SecretKey {
        let salt = Array(salt)
        return salt.withUnsafeBytes { s in
            inputKeyMaterial.withUnsafeBytes { ikm in extract(salt: s, inputKeyMaterialParts: [ikm]) }
        }
    }

    /// HKDF-Extract with the salt and the input key material given as memory; `inputKeyMaterialParts`
    /// are concatenated as the IKM (HPKE's LabeledExtract prefixes a label). An empty salt means
    /// 32 zero bytes. The HMAC state is wiped by `finalize`.
    static func extract(salt: UnsafeRawBufferPointer, inputKeyMaterialParts: [UnsafeRawBufferPointer]) -> SecretKey {
        let prk = SecureBytes(count: HMACSHA256.byteCount) { output in
            var state: HMACState
            if salt.isEmpty {
                let zeros = [UInt8](repeating: 0, count: HMACSHA256.byteCount)
                state = zeros.withUnsafeBytes { HMACState(key: $0) }
            } else {
                state = HMACState(key: salt)
            }
            for part in inputKeyMaterialParts { state.update(part) }
            state.finalize(into: output.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return SecretKey(storage: prk)
    }

    /// HKDF-Expand: the first `outputByteCount` bytes of T(1) || T(2) || …,
    /// T(i) = HMAC-SHA256(PRK, T(i-1) || info || i).
    package static func expand(
        pseudoRandomKey: SecretKey, info: some Sequence<UInt8>, outputByteCount: Int
    ) throws(PrimitiveError) -> SecretKey {
        guard outputByteCount >= 0, outputByteCount <= maximumOutputByteCount else {
            throw .invalidOutputLength(outputByteCount)
        }
        let info = Array(info)
        let keyed = pseudoRandomKey.withUnsafeBytes { KeyedHMAC(key: $0) }
        let okm = SecureBytes(count: outputByteCount) { output in
            info.withUnsafeBytes { infoBytes in
                expand(keyed: keyed, infoParts: [infoBytes], into: output)
            }
        }
        return SecretKey(storage: okm)
    }

    /// Expand from a precomputed keyed HMAC state (the PRK's, keyed once); `infoParts` are
    /// concatenated as the info. Every intermediate block and state is wiped.
    package static func expand(keyed: KeyedHMAC, infoParts: [UnsafeRawBufferPointer], into output: UnsafeMutableRawBufferPointer) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: HMACSHA256.byteCount) { block in
            let blockBytes = UnsafeMutableRawBufferPointer(block)
            blockBytes.initializeMemory(as: UInt8.self, repeating: 0)
            defer { SecureMemory.wipe(blockBytes) }
            var produced = 0
            var counter: UInt8 = 1
            while produced < output.count {
                var state = keyed.start()
                if counter > 1 { state.update(UnsafeRawBufferPointer(blockBytes)) }
                for part in infoParts { state.update(part) }
                state.update(byte: counter)
                state.finalize(into: block.baseAddress!)
                let take = min(HMACSHA256.byteCount, output.count - produced)
                (output.baseAddress! + produced).copyMemory(from: blockBytes.baseAddress!, byteCount: take)
                produced += take
                counter &+= 1
            }
        }
    }
}
