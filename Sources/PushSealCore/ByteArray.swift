/// Byte arrays made without the standard library's generic allocation path.
///
/// `[UInt8](repeating:count:)` and `[UInt8](unsafeUninitializedCapacity:initializingWith:)` reach
/// an unspecialized allocation function that looks up the array storage's generic metadata on
/// every call (about 350 instructions and a lock-free cache probe, more than the allocation
/// itself); copying from a buffer (`Array(UnsafeRawBufferPointer)`) takes the specialized path.
package enum ByteArray {
    /// Zeros copied from, never written; allocated once and never freed.
    nonisolated(unsafe) private static let zeros: UnsafeRawBufferPointer = {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        return UnsafeRawBufferPointer(buffer)
    }()

    /// `count` zero bytes.
    package static func zeroed(count: Int) -> [UInt8] {
        guard count <= zeros.count else { return [UInt8](repeating: 0, count: count) }
        return Array(UnsafeRawBufferPointer(rebasing: zeros[..<count]))
    }
}
