/// Whole reads and writes on an open file descriptor, retrying short transfers and `EINTR`.
package enum FileDescriptor {
    /// Whether reading `descriptor` now would not block (data, end of file or an error is
    /// there): a zero-timeout `poll`.
    package static func isReadable(_ descriptor: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) != 0
    }

    /// Writes all of `bytes` to `descriptor`, retrying on short writes and `EINTR`.
    /// `path` only names the target in the error (nil: standard output).
    package static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String? = nil) throws(IOError) {
        var offset = 0
        while offset < bytes.count {
            let written = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw .cannotWrite(path: path, errno: errno)
            }
            offset += written
        }
    }

    /// Reads `descriptor` to its end, at most `limit` bytes (more is an error; the descriptor is
    /// never read beyond `limit + 1` bytes). `path` names it in errors (nil: standard input);
    /// `sizeHint` is the expected size, for the first allocation.
    package static func readAll(from descriptor: Int32, path: String?, limit: Int, sizeHint: Int = 0) throws(IOError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(max(sizeHint + 1, 4096), limit + 1))
        let chunkSize = 64 * 1024
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let wanted = min(chunkSize, limit + 1 - bytes.count)
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress!, wanted) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EISDIR, let path { throw .isDirectory(path: path) }
                throw .cannotRead(path: path, errno: errno)
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > limit { throw .tooLarge(path: path, limit: limit) }
        }
    }
}

/// `read(2)`, for code inside a type with a `read` member (there the unqualified name resolves to
/// the member).
@inline(__always)
package func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

/// `write(2)`, for code inside a type with a `write` member.
@inline(__always)
func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
