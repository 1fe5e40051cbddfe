#if canImport(CryptoKit) || canImport(Crypto)
internal import PushSealPlatform
#else
internal import CSodium
#endif

/// Wiping and constant-time comparison, for memory that holds or held secrets.
package enum SecureMemory {
    /// Overwrites `buffer` with zeros in a way the compiler may not elide
    /// (`sodium_memzero`; `memset_s` on Apple platforms, `explicit_bzero` elsewhere).
    package static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        #if canImport(CryptoKit) || canImport(Crypto)
        #if canImport(Darwin)
        _ = memset_s(base, buffer.count, 0, buffer.count)
        #else
        explicit_bzero(base, buffer.count)
        #endif
        #else
        sodium_memzero(base, buffer.count)
        #endif
    }

    /// Compares two byte buffers in time that depends only on their length; buffers of
    /// different lengths are unequal.
    package static func constantTimeEqual(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard lhs.count > 0, let l = lhs.baseAddress, let r = rhs.baseAddress else { return true }
        #if canImport(CryptoKit) || canImport(Crypto)
        // CryptoKit has no public comparison of raw bytes: accumulate the differences of every
        // byte, without a data-dependent branch.
        var difference: UInt8 = 0
        for index in 0..<lhs.count {
            difference |= l.load(fromByteOffset: index, as: UInt8.self) ^ r.load(fromByteOffset: index, as: UInt8.self)
        }
        return difference == 0
        #else
        return sodium_memcmp(l, r, lhs.count) == 0
        #endif
    }

    /// True when every byte of `buffer` is zero, in time that depends only on its length.
    package static func isZero(_ buffer: UnsafeRawBufferPointer) -> Bool {
        var accumulated: UInt8 = 0
        for byte in buffer { accumulated |= byte }
        return accumulated == 0
    }
}

/// The system's cryptographically secure random number generator.
package enum SystemRandom {
    /// Fills `buffer` with CSPRNG bytes (libsodium's `randombytes_buf`; on the CryptoKit
    /// backend the standard library's `SystemRandomNumberGenerator`: `arc4random_buf` on Apple
    /// platforms, `getrandom` on Linux).
    package static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        #if canImport(CryptoKit) || canImport(Crypto)
        var generator = SystemRandomNumberGenerator()
        var offset = 0
        while offset < buffer.count {
            var word = generator.next()
            let take = min(8, buffer.count - offset)
            withUnsafeBytes(of: &word) { (base + offset).copyMemory(from: $0.baseAddress!, byteCount: take) }
            word = 0
            offset += take
        }
        #else
        Sodium.ensureInitialized()
        randombytes_buf(base, buffer.count)
        #endif
    }

    /// Returns `count` CSPRNG bytes (for values that are not secret: salts, file name suffixes).
    package static func bytes(count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            fill(UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
    }
}
