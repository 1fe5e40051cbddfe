#if canImport(CryptoKit)
internal import CryptoKit
internal import Foundation
#elseif canImport(Crypto)
internal import Crypto
internal import Foundation
#else
internal import CSodium
#endif

/// ChaCha20-Poly1305 as in RFC 8439: libsodium's `crypto_aead_chacha20poly1305_ietf_*`, or
/// CryptoKit's `ChaChaPoly`.
///
/// Sizes are checked before any library call: libsodium reads keys and nonces through fixed-size
/// pointers and would read past a short buffer.
package enum ChaCha20Poly1305 {
    /// Key length in bytes.
    package static let keyByteCount = 32
    /// Nonce length in bytes.
    package static let nonceByteCount = 12
    /// Authentication tag length in bytes.
    package static let tagByteCount = 16

    /// Encrypts and authenticates `plaintext`, authenticating `authenticatedData` too.
    /// Returns the ciphertext (same length as the plaintext) followed by the 16-byte tag.
    package static func seal(
        _ plaintext: [UInt8], using key: SecretKey, nonce: [UInt8], authenticating authenticatedData: [UInt8] = []
    ) throws(PrimitiveError) -> [UInt8] {
        try checkSizes(key: key, nonce: nonce)
        return [UInt8](unsafeUninitializedCapacity: plaintext.count + tagByteCount) { output, initialized in
            key.withUnsafeBytes { k in
                nonce.withUnsafeBytes { n in
                    authenticatedData.withUnsafeBytes { ad in
                        plaintext.withUnsafeBytes { p in
                            sealDetachedInPlace(
                                output: UnsafeMutableRawBufferPointer(output), plaintext: p,
                                key: k, nonce: n, authenticatedData: ad)
                        }
                    }
                }
            }
            initialized = plaintext.count + tagByteCount
        }
    }

    /// Verifies and decrypts `ciphertextAndTag` (ciphertext followed by the 16-byte tag).
    /// Nothing is returned unless the tag is valid. The caller owns, and wipes, the plaintext.
    package static func open(
        _ ciphertextAndTag: [UInt8], using key: SecretKey, nonce: [UInt8], authenticating authenticatedData: [UInt8] = []
    ) throws(PrimitiveError) -> [UInt8] {
        try checkSizes(key: key, nonce: nonce)
        guard ciphertextAndTag.count >= tagByteCount else {
            throw .incorrectTagSize(expected: tagByteCount, actual: ciphertextAndTag.count)
        }
        let plaintextCount = ciphertextAndTag.count - tagByteCount
        var ok = false
        let plaintext = [UInt8](unsafeUninitializedCapacity: plaintextCount) { output, initialized in
            ok = key.withUnsafeBytes { k in
                nonce.withUnsafeBytes { n in
                    authenticatedData.withUnsafeBytes { ad in
                        ciphertextAndTag.withUnsafeBytes { c in
                            openInPlace(output: UnsafeMutableRawBufferPointer(output), ciphertextAndTag: c, key: k, nonce: n, authenticatedData: ad)
                        }
                    }
                }
            }
            initialized = plaintextCount
        }
        guard ok else { throw .authenticationFailure }
        return plaintext
    }

    private static func checkSizes(key: SecretKey, nonce: [UInt8]) throws(PrimitiveError) {
        guard key.byteCount == keyByteCount else { throw .incorrectKeySize(expected: keyByteCount, actual: key.byteCount) }
        guard nonce.count == nonceByteCount else { throw .incorrectNonceSize(expected: nonceByteCount, actual: nonce.count) }
    }

    /// Seals `plaintext` into `output` (`plaintext.count + 16` bytes: ciphertext, then tag).
    /// `plaintext` may alias the start of `output`. Key and nonce sizes are preconditions.
    @inline(__always)
    package static func sealDetachedInPlace(
        output: UnsafeMutableRawBufferPointer, plaintext: UnsafeRawBufferPointer,
        key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, authenticatedData: UnsafeRawBufferPointer
    ) {
        precondition(key.count == keyByteCount && nonce.count == nonceByteCount)
        precondition(output.count == plaintext.count + tagByteCount)
        #if canImport(CryptoKit) || canImport(Crypto)
        // CryptoKit returns a new sealed box; its ciphertext is not secret. The sizes were checked
        // above, so nothing here can throw.
        let box = try! ChaChaPoly.seal(
            plaintext, using: SymmetricKey(data: key), nonce: ChaChaPoly.Nonce(data: nonce), authenticating: authenticatedData)
        if plaintext.count > 0 {
            box.ciphertext.withUnsafeBytes { output.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: plaintext.count) }
        }
        box.tag.withUnsafeBytes { (output.baseAddress! + plaintext.count).copyMemory(from: $0.baseAddress!, byteCount: tagByteCount) }
        #else
        Sodium.ensureInitialized()
        let out = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
        crypto_aead_chacha20poly1305_ietf_encrypt_detached(
            out, out + plaintext.count, nil,
            plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(plaintext.count),
            authenticatedData.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(authenticatedData.count),
            nil,
            nonce.baseAddress!.assumingMemoryBound(to: UInt8.self),
            key.baseAddress!.assumingMemoryBound(to: UInt8.self))
        #endif
    }

    /// Opens `ciphertextAndTag` into `output` (`ciphertextAndTag.count - 16` bytes). Returns
    /// false, and leaves `output` zeroed, when the tag is invalid. Key and nonce sizes are
    /// preconditions.
    @inline(__always)
    package static func openInPlace(
        output: UnsafeMutableRawBufferPointer, ciphertextAndTag: UnsafeRawBufferPointer,
        key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, authenticatedData: UnsafeRawBufferPointer
    ) -> Bool {
        precondition(key.count == keyByteCount && nonce.count == nonceByteCount)
        precondition(ciphertextAndTag.count >= tagByteCount && output.count == ciphertextAndTag.count - tagByteCount)
        let count = ciphertextAndTag.count - tagByteCount
        #if canImport(CryptoKit) || canImport(Crypto)
        do {
            let box = try ChaChaPoly.SealedBox(
                nonce: ChaChaPoly.Nonce(data: nonce),
                ciphertext: UnsafeRawBufferPointer(rebasing: ciphertextAndTag[..<count]),
                tag: UnsafeRawBufferPointer(rebasing: ciphertextAndTag[count...]))
            // CryptoKit returns the plaintext as a new Data, which this function owns alone:
            // it is copied out and wiped in place.
            var plaintext = try ChaChaPoly.open(box, using: SymmetricKey(data: key), authenticating: authenticatedData)
            plaintext.withUnsafeMutableBytes { bytes in
                if count > 0 { output.baseAddress!.copyMemory(from: bytes.baseAddress!, byteCount: count) }
                SecureMemory.wipe(bytes)
            }
            return true
        } catch {
            SecureMemory.wipe(output)
            return false
        }
        #else
        Sodium.ensureInitialized()
        let c = ciphertextAndTag.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let status = crypto_aead_chacha20poly1305_ietf_decrypt_detached(
            output.baseAddress?.assumingMemoryBound(to: UInt8.self), nil,
            c, UInt64(count), c + count,
            authenticatedData.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(authenticatedData.count),
            nonce.baseAddress!.assumingMemoryBound(to: UInt8.self),
            key.baseAddress!.assumingMemoryBound(to: UInt8.self))
        if status != 0 {
            SecureMemory.wipe(output)
            return false
        }
        return true
        #endif
    }
}
