#if canImport(CryptoKit)
internal import CryptoKit
#elseif canImport(Crypto)
internal import Crypto
#else
internal import CSodium
#endif

/// SHA-256 (FIPS 180-4) of public bytes: libsodium's `crypto_hash_sha256`, or CryptoKit's
/// `SHA256`. For digests of files (the vendored vector files' manifest), never of secrets: the
/// CryptoKit state cannot be wiped.
package enum SHA256Digest {
    /// Length of a digest in bytes.
    package static let byteCount = 32

    /// The SHA-256 digest of `bytes`.
    package static func hash(_ bytes: [UInt8]) -> [UInt8] {
        #if canImport(CryptoKit) || canImport(Crypto)
        return Array(SHA256.hash(data: bytes))
        #else
        var digest = [UInt8](repeating: 0, count: byteCount)
        let status = bytes.withUnsafeBufferPointer { input in
            crypto_hash_sha256(&digest, input.baseAddress, UInt64(input.count))
        }
        precondition(status == 0, "crypto_hash_sha256 cannot fail")
        return digest
        #endif
    }
}
