/// ISO/IEC 7816-4 padding: the content, one 0x80 byte, then zero bytes.
///
/// The receiver removes it without knowing the block size: the content ends at the last 0x80
/// byte and every byte after it must be 0x00.
public enum Padding {
    /// Smallest multiple of `blockSize` that holds `contentLength` bytes plus the 0x80 marker.
    public static func paddedLength(contentLength: Int, blockSize: Int) -> Int {
        precondition(blockSize >= 1 && contentLength >= 0)
        let minimum = contentLength + 1
        return (minimum + blockSize - 1) / blockSize * blockSize
    }

    /// `content` padded to exactly `length` bytes (`length > content.count`).
    public static func pad(_ content: [UInt8], toLength length: Int) -> [UInt8] {
        precondition(length > content.count, "padded length must leave room for the 0x80 marker")
        return [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
            let padded = UnsafeMutableRawBufferPointer(buffer)
            content.withUnsafeBytes { if let source = $0.baseAddress { padded.baseAddress!.copyMemory(from: source, byteCount: content.count) } }
            pad(padded, contentLength: content.count)
            initialized = length
        }
    }

    /// Pads in place: `buffer` holds `contentLength` content bytes at its start; the 0x80 marker
    /// and the zeros are written after them, up to the end of `buffer`
    /// (`buffer.count > contentLength`). The one padding writer, also used by the sealer on its
    /// payload buffer.
    @inlinable
    public static func pad(_ buffer: UnsafeMutableRawBufferPointer, contentLength: Int) {
        precondition(buffer.count > contentLength && contentLength >= 0, "padded length must leave room for the 0x80 marker")
        buffer[contentLength] = 0x80
        (buffer.baseAddress! + contentLength + 1).initializeMemory(as: UInt8.self, repeating: 0, count: buffer.count - contentLength - 1)
    }

    /// Length of the content inside `padded`, or nil when the padding is malformed
    /// (no 0x80 byte, or a non-zero byte after the last one).
    public static func unpaddedLength(of padded: UnsafeRawBufferPointer) -> Int? {
        var index = padded.count - 1
        // Step over zero bytes from the end (most of the padding): 32 at a time, then 8.
        if let base = padded.baseAddress {
            while index >= 31 {
                let words = base + index - 31
                let any = words.loadUnaligned(as: UInt64.self) | words.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                    | words.loadUnaligned(fromByteOffset: 16, as: UInt64.self) | words.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
                guard any == 0 else { break }
                index -= 32
            }
            while index >= 7, (base + index - 7).loadUnaligned(as: UInt64.self) == 0 { index -= 8 }
        }
        while index >= 0 {
            switch padded[index] {
            case 0x00: index -= 1
            case 0x80: return index
            default: return nil
            }
        }
        return nil
    }

    /// Length of the content inside `padded`, or nil when the padding is malformed.
    public static func unpaddedLength(of padded: [UInt8]) -> Int? {
        padded.withUnsafeBytes { unpaddedLength(of: $0) }
    }
}
