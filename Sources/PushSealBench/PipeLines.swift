import PushSealPlatform
import PushSealProvider

/// A child process's output read line by line, through the provider's bounded line reader.
extension JSONLineReader where ReadError == Never {
    /// Lines of the pipe `descriptor` (at most 64 KiB each; interrupted reads are retried, an
    /// error ends the stream).
    static func pipe(_ descriptor: Int32) -> JSONLineReader<Never> {
        JSONLineReader(maximumLineByteCount: 64 * 1024) { buffer in
            while true {
                let count = systemRead(descriptor, buffer.baseAddress!, buffer.count)
                if count >= 0 { return count }
                if errno != EINTR { return 0 }
            }
        }
    }

    /// The next line as text (without its newline); nil at the end of the stream or for a line
    /// over the limit.
    func nextText() -> String? {
        guard case let .complete(bytes)? = nextLines(maximumCount: 1, maximumByteCount: 1)?.first else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
