/// HKDF with SHA-256 (RFC 5869), built on libsodium's multi-part HMAC-SHA256.
///
/// PushSeal itself uses only ``expand(pseudoRandomKey:info:outputByteCount:)`` with the
/// conversation key as PRK (RFC 5869 §3.3); ``extract(salt:inputKeyMaterial:)`` is here for
/// completeness and the known-answer tests.
public enum HKDFSHA256 {
    /// The largest output HKDF-SHA256 can produce: 255 blocks of 32 bytes.
    public static let maximumOutputByteCount = 255 * HMACSHA256.byteCount

    /// HKDF-Extract: PRK = HMAC-SHA256(salt, IKM). An empty salt means 32 zero bytes.
    public static func extract(salt: some Sequence<UInt8>, inputKeyMaterial: SymmetricKey) -> SymmetricKey {
        let salt = Array(salt)
        let saltKey = salt.isEmpty ? SymmetricKey(bytes: [UInt8](repeating: 0, count: HMACSHA256.byteCount)) : SymmetricKey(bytes: salt)
        let prk = SecureBytes(count: HMACSHA256.byteCount) { output in
            saltKey.withUnsafeBytes { s in
                inputKeyMaterial.withUnsafeBytes { ikm in
                    var state = KeyedHMACState(key: s)
                    state.update(ikm)
                    state.finalize(into: output.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        return SymmetricKey(storage: prk)
    }

    /// HKDF-Expand: the first `outputByteCount` bytes of T(1) || T(2) || …,
    /// T(i) = HMAC-SHA256(PRK, T(i-1) || info || i).
    public static func expand(
        pseudoRandomKey: SymmetricKey, info: some Sequence<UInt8>, outputByteCount: Int
    ) throws(CryptoError) -> SymmetricKey {
        guard outputByteCount >= 0, outputByteCount <= maximumOutputByteCount else {
            throw .invalidOutputLength(outputByteCount)
        }
        let info = Array(info)
        let okm = pseudoRandomKey.withUnsafeBytes { prk in
            let keyed = KeyedHMACState(key: prk)
            return SecureBytes(count: outputByteCount) { output in
                info.withUnsafeBytes { infoBytes in
                    expand(keyedState: keyed, infoParts: [infoBytes], into: output)
                }
            }
        }
        return SymmetricKey(storage: okm)
    }

    /// Expand from a precomputed keyed HMAC state; `infoParts` are concatenated as the info.
    /// Every intermediate block is wiped.
    static func expand(
        keyedState: KeyedHMACState, infoParts: [UnsafeRawBufferPointer], into output: UnsafeMutableRawBufferPointer
    ) {
        var block = [UInt8](repeating: 0, count: HMACSHA256.byteCount)
        var produced = 0
        var counter: UInt8 = 1
        block.withUnsafeMutableBytes { blockBytes in
            let blockPointer = blockBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            while produced < output.count {
                var state = keyedState
                if counter > 1 { state.update(UnsafeRawBufferPointer(blockBytes)) }
                for part in infoParts { state.update(part) }
                state.update(byte: counter)
                state.finalize(into: blockPointer)
                let take = min(HMACSHA256.byteCount, output.count - produced)
                (output.baseAddress! + produced).copyMemory(from: blockBytes.baseAddress!, byteCount: take)
                produced += take
                counter &+= 1
            }
            Sodium.zero(blockBytes)
        }
    }
}
