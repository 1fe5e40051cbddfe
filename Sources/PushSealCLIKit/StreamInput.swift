import PushSealPlatform

/// A file or standard input read as it arrives, one `read(2)` at a time: for input of any
/// length processed line by line (the JSON lines of `pushseal seal --batch` and `pushseal
/// send`, split by the provider's `JSONLineReader`).
package final class StreamInput {
    private let descriptor: Int32
    private let path: String?
    private let closesDescriptor: Bool

    /// A stream of `descriptor` (closed by `deinit` when `closesDescriptor`). `path` names the
    /// stream in errors (nil: standard input).
    package init(descriptor: Int32, path: String?, closesDescriptor: Bool = false) {
        self.descriptor = descriptor
        self.path = path
        self.closesDescriptor = closesDescriptor
    }

    deinit {
        if closesDescriptor { close(descriptor) }
    }

    /// One `read(2)` into `buffer` (retried when interrupted): the number of bytes read, 0 at
    /// the end of the stream.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(CLIError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let count = systemRead(descriptor, base, buffer.count)
            if count >= 0 { return count }
            let code = errno
            if code == EINTR { continue }
            if code == EISDIR, let path { throw .io(.isDirectory(path: path)) }
            throw .io(.cannotRead(path: path, errno: code))
        }
    }
}
