// The primitives seam: the files of this folder are the only code of PushSeal that touches a
// cryptography library. Everything above it (HKDF, the conversation key, the envelope, the key
// store's item sealing) is written once, against the package-level types declared here:
//
//   ChaCha20Poly1305  AEAD seal/open, detached and in place (RFC 8439)
//   HMACSHA256        one-shot MAC; HMACState (a running, copyable state) and KeyedHMAC (a key's
//                     precomputed state, held for reuse and wiped when released)
//   SHA256Digest      SHA-256 of public bytes (file digests)
//   X25519            key generation, public key, Diffie-Hellman that refuses the all-zero secret
//   SystemRandom      CSPRNG bytes
//   SecureMemory      wiping, constant-time equality
//   SecureBytes       heap storage that is zeroed when released; SecretKey wraps it
//   PrimitiveError    why a primitive refused its input
//
// The backend is chosen at compile time, in this order:
//   1. CryptoKit, where `canImport(CryptoKit)` holds (Apple platforms);
//   2. apple/swift-crypto's `Crypto` module, which has CryptoKit's API — only so that the
//      CryptoKit path can be built and tested on Linux (Docs/INTEGRATION-IOS.md says how);
//   3. libsodium (the CSodium system library) everywhere else: the Linux default, and the faster
//      one there.
// Each file of this folder that calls a library holds both branches, under the same conditions.

#if canImport(CryptoKit)
internal import CryptoKit
#elseif canImport(Crypto)
internal import Crypto
#else
internal import CSodium
#endif

/// Which cryptography library this build of PushSeal uses (for `pushseal bench` and diagnostics).
package enum PrimitivesBackend {
    /// A short name with the library's version where it has one, e.g. `libsodium 1.0.18`.
    package static var description: String {
        #if canImport(CryptoKit)
        "CryptoKit"
        #elseif canImport(Crypto)
        "swift-crypto (CryptoKit API)"
        #else
        "libsodium " + String(cString: sodium_version_string())
        #endif
    }

    /// True when the backend is CryptoKit or swift-crypto's CryptoKit API.
    package static var isCryptoKit: Bool {
        #if canImport(CryptoKit) || canImport(Crypto)
        true
        #else
        false
        #endif
    }
}

#if !canImport(CryptoKit) && !canImport(Crypto)
/// One-time libsodium initialisation for the libsodium backend.
enum Sodium {
    private static let initialized: Bool = sodium_init() >= 0

    /// Makes sure `sodium_init` ran. Cheap after the first call (a `static let` is initialised once).
    @inline(__always)
    static func ensureInitialized() {
        precondition(initialized, "libsodium could not be initialised")
    }
}
#endif
