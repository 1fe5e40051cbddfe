internal import CSodium

/// One-time libsodium initialisation, shared by every module of the package.
package enum Sodium {
    private static let initialized: Bool = sodium_init() >= 0

    /// Makes sure `sodium_init` ran. Cheap after the first call (a `static let` is initialised once).
    @inline(__always)
    package static func ensureInitialized() {
        precondition(initialized, "libsodium could not be initialised")
    }

    /// Fills `buffer` with bytes from libsodium's CSPRNG.
    package static func randomBytes(_ buffer: UnsafeMutableRawBufferPointer) {
        ensureInitialized()
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        randombytes_buf(base, buffer.count)
    }

    /// Returns `count` bytes from libsodium's CSPRNG.
    package static func randomBytes(count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            randomBytes(UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
    }

    /// Overwrites `buffer` with zeros in a way the compiler may not elide.
    package static func zero(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        sodium_memzero(base, buffer.count)
    }

    /// Compares two byte buffers in time that depends only on their length.
    package static func constantTimeEqual(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard lhs.count > 0, let l = lhs.baseAddress, let r = rhs.baseAddress else { return true }
        return sodium_memcmp(l, r, lhs.count) == 0
    }
}
