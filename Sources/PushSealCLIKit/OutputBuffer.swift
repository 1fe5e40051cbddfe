import PushSealPlatform

/// Buffered standard output: commands append, the tool writes once at the end (one `write(2)`
/// for typical outputs), or earlier when the buffer grows past ``flushThreshold``.
package struct OutputBuffer: Sendable {
    /// Buffered bytes beyond this are written out at the next append.
    package static let flushThreshold = 256 * 1024

    /// Bytes not yet written.
    package private(set) var pending: [UInt8] = []
    /// The descriptor written to.
    package let descriptor: Int32
    /// The first write failure, reported at the final flush.
    package private(set) var failure: IOError?

    /// A buffer for `descriptor` (standard output by default).
    package init(descriptor: Int32 = 1) {
        self.descriptor = descriptor
    }

    /// Appends `text`.
    package mutating func append(_ text: String) {
        pending.append(contentsOf: text.utf8)
        flushIfLarge()
    }

    /// Appends raw bytes.
    package mutating func append(bytes: some Sequence<UInt8>) {
        pending.append(contentsOf: bytes)
        flushIfLarge()
    }

    private mutating func flushIfLarge() {
        if pending.count >= Self.flushThreshold { try? flush() }
    }

    /// Writes everything pending; throws the first failure seen so far.
    package mutating func flush() throws(IOError) {
        if let failure { throw failure }
        guard !pending.isEmpty else { return }
        let path = descriptor == 1 ? nil : "descriptor \(descriptor)"
        let result = pending.withUnsafeBytes { buffer in
            Result { () throws(IOError) in try FileDescriptor.write(buffer, to: descriptor, path: path) }
        }
        // Output may hold secrets (keygen, key export): wipe it rather than leave it in freed memory.
        pending.withUnsafeMutableBytes { buffer in
            for index in buffer.indices { buffer[index] = 0 }
        }
        pending.removeAll(keepingCapacity: true)
        if case let .failure(error) = result {
            failure = error
            throw error
        }
    }
}
