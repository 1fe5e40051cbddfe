#if canImport(CryptoKit)
internal import CryptoKit
internal import Foundation
#elseif canImport(Crypto)
internal import Crypto
internal import Foundation
#else
internal import CSodium
#endif

/// X25519 Diffie-Hellman (RFC 7748): libsodium's `crypto_scalarmult_curve25519*`, or CryptoKit's
/// `Curve25519.KeyAgreement`.
///
/// A private key is 32 random bytes, kept in a ``SecretKey``; clamping happens inside every
/// operation, as RFC 7748 §5 specifies, so any 32 bytes are a valid private key. Public keys and
/// shared secrets are 32 bytes; a public key's top bit is ignored and non-canonical encodings are
/// accepted (RFC 7748 §5). ``sharedSecret(privateKey:publicKey:)`` refuses the all-zero result,
/// as RFC 9180 §7.1.4 requires of DHKEM(X25519): neither CryptoKit nor swift-crypto does.
package enum X25519 {
    /// Length of a private key, a public key and a shared secret in bytes.
    package static let byteCount = 32

    /// A new private key: 32 bytes from the system CSPRNG.
    package static func generatePrivateKey() -> SecretKey {
        SecretKey.random(byteCount: byteCount)
    }

    /// The public key of `privateKey` (X25519(k, 9)).
    package static func publicKey(for privateKey: SecretKey) throws(PrimitiveError) -> [UInt8] {
        guard privateKey.byteCount == byteCount else {
            throw .incorrectKeySize(expected: byteCount, actual: privateKey.byteCount)
        }
        #if canImport(CryptoKit) || canImport(Crypto)
        let key = privateKey.withUnsafeBytes { try! Curve25519.KeyAgreement.PrivateKey(rawRepresentation: $0) }
        return Array(key.publicKey.rawRepresentation)
        #else
        Sodium.ensureInitialized()
        return [UInt8](unsafeUninitializedCapacity: byteCount) { output, initialized in
            privateKey.withUnsafeBytes { k in
                _ = crypto_scalarmult_curve25519_base(output.baseAddress!, k.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            initialized = byteCount
        }
        #endif
    }

    /// Whether `publicKey` (32 bytes) is a point of small order (order 1, 2, 4 or 8, in any
    /// encoding: the all-zero key, 1, the order-8 points and their non-canonical forms). Every
    /// X25519 shared secret with such a key is all zero, so it can never be a peer's key: a
    /// clamped scalar is a multiple of 8 and so is zero on the small subgroup, and nonzero
    /// modulo the large prime order, so X25519 with any fixed private key is all zero exactly
    /// for these points. Not secret: the private key is a public constant.
    package static func isSmallOrder(_ publicKey: [UInt8]) -> Bool {
        precondition(publicKey.count == byteCount, "an X25519 public key is \(byteCount) bytes")
        do throws(PrimitiveError) {
            _ = try sharedSecret(privateKey: smallOrderProbe, publicKey: publicKey)
            return false
        } catch {
            return true
        }
    }

    /// The fixed, public private key ``isSmallOrder(_:)`` multiplies by.
    private static let smallOrderProbe = SecretKey(bytes: (0..<UInt8(byteCount)).map { $0 &* 29 &+ 1 })

    /// The shared secret X25519(privateKey, publicKey), in secure storage.
    ///
    /// Throws ``PrimitiveError/incorrectKeySize(expected:actual:)`` for a key that is not 32
    /// bytes and ``PrimitiveError/zeroSharedSecret`` when the result is all zero (the public key
    /// is a point of small order); nothing is returned then.
    package static func sharedSecret(privateKey: SecretKey, publicKey: [UInt8]) throws(PrimitiveError) -> SecretKey {
        guard privateKey.byteCount == byteCount else {
            throw .incorrectKeySize(expected: byteCount, actual: privateKey.byteCount)
        }
        guard publicKey.count == byteCount else {
            throw .incorrectKeySize(expected: byteCount, actual: publicKey.count)
        }
        var computed = true
        let secret = SecureBytes(count: byteCount) { output in
            #if canImport(CryptoKit) || canImport(Crypto)
            // Both sizes are checked above, so CryptoKit cannot throw here.
            let shared = privateKey.withUnsafeBytes { k in
                publicKey.withUnsafeBytes { p in
                    try! Curve25519.KeyAgreement.PrivateKey(rawRepresentation: k)
                        .sharedSecretFromKeyAgreement(with: Curve25519.KeyAgreement.PublicKey(rawRepresentation: p))
                }
            }
            shared.withUnsafeBytes { output.copyMemory(from: $0) }
            #else
            Sodium.ensureInitialized()
            // libsodium returns -1 for a small-order point or an all-zero result.
            computed = privateKey.withUnsafeBytes { k in
                publicKey.withUnsafeBytes { p in
                    crypto_scalarmult_curve25519(
                        output.baseAddress!.assumingMemoryBound(to: UInt8.self),
                        k.baseAddress!.assumingMemoryBound(to: UInt8.self),
                        p.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 0
                }
            }
            #endif
        }
        guard computed, !secret.withUnsafeBytes({ SecureMemory.isZero($0) }) else { throw .zeroSharedSecret }
        return SecretKey(storage: secret)
    }
}
