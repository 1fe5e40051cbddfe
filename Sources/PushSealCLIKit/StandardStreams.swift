import PushSealPlatform

/// Standard input, output and error over plain file descriptors (no Foundation, no stdio
/// buffering surprises).
package enum StandardStreams {
    /// Writes `text` to standard error, ignoring failures (there is nowhere left to report them).
    package static func writeStandardError(_ text: String) {
        var text = text
        text.withUTF8 { try? FileDescriptor.write(UnsafeRawBufferPointer($0), to: STDERR_FILENO, path: "standard error") }
    }

    /// Reads standard input to its end; more than `limit` bytes is an error (the input is never
    /// read beyond `limit + 1` bytes).
    package static func readStandardInput(limit: Int) throws(IOError) -> [UInt8] {
        try FileDescriptor.readAll(from: STDIN_FILENO, path: nil, limit: limit)
    }

    /// Whether standard input is a terminal (nothing was piped in).
    package static var standardInputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }
}
