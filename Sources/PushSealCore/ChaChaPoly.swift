internal import CSodium

/// ChaCha20-Poly1305 as in RFC 8439 (libsodium's `crypto_aead_chacha20poly1305_ietf_*`).
///
/// Sizes are checked before any C call: libsodium reads keys and nonces through fixed-size
/// pointers and would read past a short buffer.
public enum ChaChaPoly {
    /// Key length in bytes.
    public static let keyByteCount = 32
    /// Nonce length in bytes.
    public static let nonceByteCount = 12
    /// Authentication tag length in bytes.
    public static let tagByteCount = 16

    /// Encrypts and authenticates `plaintext`, authenticating `authenticatedData` too.
    /// Returns the ciphertext (same length as the plaintext) followed by the 16-byte tag.
    public static func seal(
        _ plaintext: [UInt8], using key: SymmetricKey, nonce: [UInt8], authenticating authenticatedData: [UInt8] = []
    ) throws(CryptoError) -> [UInt8] {
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
    /// Nothing is returned unless the tag is valid.
    public static func open(
        _ ciphertextAndTag: [UInt8], using key: SymmetricKey, nonce: [UInt8], authenticating authenticatedData: [UInt8] = []
    ) throws(CryptoError) -> [UInt8] {
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

    private static func checkSizes(key: SymmetricKey, nonce: [UInt8]) throws(CryptoError) {
        guard key.byteCount == keyByteCount else { throw .incorrectKeySize(expected: keyByteCount, actual: key.byteCount) }
        guard nonce.count == nonceByteCount else { throw .incorrectNonceSize(expected: nonceByteCount, actual: nonce.count) }
    }

    /// Seals `plaintext` into `output` (`plaintext.count + 16` bytes). `plaintext` may alias the
    /// start of `output`. Sizes of key and nonce must already be checked.
    @inline(__always)
    package static func sealDetachedInPlace(
        output: UnsafeMutableRawBufferPointer, plaintext: UnsafeRawBufferPointer,
        key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, authenticatedData: UnsafeRawBufferPointer
    ) {
        precondition(key.count == keyByteCount && nonce.count == nonceByteCount)
        precondition(output.count == plaintext.count + tagByteCount)
        Sodium.ensureInitialized()
        let out = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
        crypto_aead_chacha20poly1305_ietf_encrypt_detached(
            out, out + plaintext.count, nil,
            plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(plaintext.count),
            authenticatedData.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(authenticatedData.count),
            nil,
            nonce.baseAddress!.assumingMemoryBound(to: UInt8.self),
            key.baseAddress!.assumingMemoryBound(to: UInt8.self))
    }

    /// Opens `ciphertextAndTag` into `output` (`ciphertextAndTag.count - 16` bytes). Returns
    /// false, and leaves `output` zeroed, when the tag is invalid.
    @inline(__always)
    package static func openInPlace(
        output: UnsafeMutableRawBufferPointer, ciphertextAndTag: UnsafeRawBufferPointer,
        key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, authenticatedData: UnsafeRawBufferPointer
    ) -> Bool {
        precondition(key.count == keyByteCount && nonce.count == nonceByteCount)
        precondition(ciphertextAndTag.count >= tagByteCount && output.count == ciphertextAndTag.count - tagByteCount)
        Sodium.ensureInitialized()
        let c = ciphertextAndTag.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let count = ciphertextAndTag.count - tagByteCount
        let status = crypto_aead_chacha20poly1305_ietf_decrypt_detached(
            output.baseAddress?.assumingMemoryBound(to: UInt8.self), nil,
            c, UInt64(count), c + count,
            authenticatedData.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(authenticatedData.count),
            nonce.baseAddress!.assumingMemoryBound(to: UInt8.self),
            key.baseAddress!.assumingMemoryBound(to: UInt8.self))
        if status != 0 {
            Sodium.zero(output)
            return false
        }
        return true
    }
}
