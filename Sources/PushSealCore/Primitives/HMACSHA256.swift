#if canImport(CryptoKit)
internal import CryptoKit
internal import Foundation
#elseif canImport(Crypto)
internal import Crypto
internal import Foundation
#else
internal import CSodium
#endif

/// HMAC-SHA256 (RFC 2104) for keys of any length: libsodium's multi-part
/// `crypto_auth_hmacsha256_*`, or CryptoKit's `HMAC<SHA256>`.
package enum HMACSHA256 {
    /// Length of a full authentication code in bytes.
    package static let byteCount = 32

    /// Computes HMAC-SHA256(key, message).
    package static func authenticationCode(for message: some Sequence<UInt8>, using key: SecretKey) -> [UInt8] {
        let message = Array(message)
        return key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                var state = HMACState(key: keyBytes)
                state.update(messageBytes)
                return state.finalize()
            }
        }
    }

    /// Checks `code` against HMAC-SHA256(key, message) in constant time. A shorter `code`
    /// (at least 16 bytes) is compared against the same-length prefix, as for a truncated tag.
    package static func isValidAuthenticationCode(
        _ code: some Sequence<UInt8>, for message: some Sequence<UInt8>, using key: SecretKey
    ) -> Bool {
        let code = Array(code)
        guard code.count >= 16, code.count <= byteCount else { return false }
        let expected = authenticationCode(for: message, using: key)
        return expected.withUnsafeBytes { e in
            code.withUnsafeBytes { c in SecureMemory.constantTimeEqual(UnsafeRawBufferPointer(rebasing: e[..<c.count]), c) }
        }
    }
}

/// A running HMAC-SHA256 computation. Copying the value copies the state: that is how a key's
/// precomputed inner/outer state (``KeyedHMAC``) is reused for many messages.
///
/// ``finalize(into:)`` wipes the state; a state that is abandoned unfinished must be wiped with
/// ``wipe()``. On the CryptoKit backend the state is CryptoKit's `HMAC<SHA256>`, whose hash
/// states cannot be wiped from outside (Docs/THREAT-MODEL.md says so); ``wipe()`` then drops it.
package struct HMACState {
    #if canImport(CryptoKit) || canImport(Crypto)
    private var hmac: HMAC<SHA256>?
    #else
    private var raw = crypto_auth_hmacsha256_state()
    #endif

    /// Starts HMAC-SHA256 keyed with `key` (any length).
    package init(key: UnsafeRawBufferPointer) {
        #if canImport(CryptoKit) || canImport(Crypto)
        hmac = HMAC<SHA256>(key: SymmetricKey(data: key))
        #else
        Sodium.ensureInitialized()
        var empty: UInt8 = 0
        if let base = key.baseAddress, key.count > 0 {
            crypto_auth_hmacsha256_init(&raw, base.assumingMemoryBound(to: UInt8.self), key.count)
        } else {
            crypto_auth_hmacsha256_init(&raw, &empty, 0)
        }
        #endif
    }

    /// Adds `bytes` to the message.
    @inline(__always)
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        #if canImport(CryptoKit) || canImport(Crypto)
        hmac!.update(data: bytes)
        #else
        crypto_auth_hmacsha256_update(&raw, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
        #endif
    }

    /// Adds one byte to the message.
    @inline(__always)
    package mutating func update(byte: UInt8) {
        var byte = byte
        withUnsafeBytes(of: &byte) { update($0) }
    }

    /// Writes the 32-byte code to `output` and wipes the state.
    @inline(__always)
    package mutating func finalize(into output: UnsafeMutablePointer<UInt8>) {
        #if canImport(CryptoKit) || canImport(Crypto)
        let code = hmac!.finalize()
        code.withUnsafeBytes { output.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: HMACSHA256.byteCount) }
        #else
        crypto_auth_hmacsha256_final(&raw, output)
        #endif
        wipe()
    }

    /// Returns the 32-byte code and wipes the state.
    package mutating func finalize() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: HMACSHA256.byteCount) { buffer, initialized in
            finalize(into: buffer.baseAddress!)
            initialized = HMACSHA256.byteCount
        }
    }

    /// Zeroes the state (it is derived from the key); on the CryptoKit backend, releases it.
    @inline(__always)
    package mutating func wipe() {
        #if canImport(CryptoKit) || canImport(Crypto)
        hmac = nil
        #else
        withUnsafeMutableBytes(of: &raw) { SecureMemory.wipe($0) }
        #endif
    }
}

/// A key's HMAC-SHA256 state, keyed once and started many times (HKDF-Expand with one PRK, the
/// conversation key's derivations). The state lives in this object only and is wiped when the
/// object is released.
package final class KeyedHMAC: @unchecked Sendable {
    // Written in `init` and `deinit` only, so sharing between threads is safe.
    private var keyed: HMACState

    /// Keys HMAC-SHA256 with `key`.
    package init(key: UnsafeRawBufferPointer) {
        keyed = HMACState(key: key)
    }

    private init(keyed: HMACState) {
        self.keyed = keyed
    }

    deinit {
        keyed.wipe()
    }

    /// A running computation from the keyed state; finalize it (or wipe it) when done.
    @inline(__always)
    package func start() -> HMACState { keyed }

    /// A copy that shares no memory with this one.
    package func privateCopy() -> KeyedHMAC { KeyedHMAC(keyed: keyed) }
}
