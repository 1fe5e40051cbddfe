#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard input, output and error over plain file descriptors (no Foundation, no stdio
/// buffering surprises).
public enum StandardStreams {
    /// Writes all of `bytes` to `descriptor`, retrying on short writes and `EINTR`.
    /// `path` only names the target in the error (nil: standard output).
    public static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String? = nil) throws(IOError) {
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

    /// Writes `text` to standard error, ignoring failures (there is nowhere left to report them).
    public static func writeStandardError(_ text: String) {
        var text = text
        text.withUTF8 { try? write(UnsafeRawBufferPointer($0), to: STDERR_FILENO, path: "standard error") }
    }

    /// Reads standard input to its end; more than `limit` bytes is an error (the input is never
    /// read beyond `limit + 1` bytes).
    public static func readStandardInput(limit: Int) throws(IOError) -> [UInt8] {
        try readAll(from: STDIN_FILENO, path: nil, limit: limit)
    }

    /// Whether standard input is a terminal (nothing was piped in).
    public static var standardInputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Reads `descriptor` to its end, at most `limit` bytes. `path` names it in errors (nil:
    /// standard input).
    static func readAll(from descriptor: Int32, path: String?, limit: Int, sizeHint: Int = 0) throws(IOError) -> [UInt8] {
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

// Unqualified `read`/`write` would resolve to the static methods above.
@inline(__always)
func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

@inline(__always)
func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
