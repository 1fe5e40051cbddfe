/// Heap memory for secret bytes: written once at creation, read only through scoped access,
/// and overwritten with zeros (``SecureMemory/wipe(_:)``) when the last reference goes away.
///
/// Modelled on swift-crypto's `SecureBytes`: the bytes never escape as an `Array` that the
/// allocator could copy or leave behind.
package final class SecureBytes: @unchecked Sendable {
    // Immutable after `init`, so sharing between threads is safe.
    private let pointer: UnsafeMutableRawPointer
    /// Number of secret bytes held.
    package let count: Int

    /// Allocates `count` bytes and lets `initializer` fill them.
    package init(count: Int, initializer: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        precondition(count >= 0)
        self.count = count
        self.pointer = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
        let buffer = UnsafeMutableRawBufferPointer(start: pointer, count: count)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        // If `initializer` throws, `self` is already fully initialized, so Swift runs `deinit`,
        // which zeroes and frees the buffer. (Freeing it here as well was a double free.)
        try initializer(buffer)
    }

    /// Copies `bytes` into fresh secure storage.
    package convenience init(copying bytes: UnsafeRawBufferPointer) {
        self.init(count: bytes.count) { $0.copyMemory(from: bytes) }
    }

    deinit {
        SecureMemory.wipe(UnsafeMutableRawBufferPointer(start: pointer, count: count))
        pointer.deallocate()
    }

    /// Gives `body` read access to the bytes; the pointer must not escape the closure.
    @inline(__always)
    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Raw pointer access for C state structs held in secure memory (e.g. a precomputed HMAC state).
    @inline(__always)
    package var baseAddress: UnsafeMutableRawPointer { pointer }
}
