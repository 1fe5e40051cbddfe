#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import PushSealCLIKit

/// Reads JSON lines from a file or standard input in constant memory: one line at a time, a
/// bounded buffer, whatever the input's length.
struct LineReader {
    /// A line longer than this is reported as too long (and skipped), not buffered.
    static let maximumLineByteCount = 1 << 20

    /// One input line.
    enum Line {
        /// The line's bytes, without the newline (and a final carriage return).
        case text([UInt8])
        /// The line was longer than ``maximumLineByteCount``.
        case tooLong
    }

    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    private var skipping = false
    private let path: String?

    /// Opens `path` (nil or `-`: standard input).
    init(path: String?) throws(CLIError) {
        if let path, path != "-" {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw .failure("cannot open '\(path)': \(String(cString: strerror(errno)))") }
            self.descriptor = descriptor
            self.ownsDescriptor = true
            self.path = path
        } else {
            self.descriptor = 0
            self.ownsDescriptor = false
            self.path = nil
        }
    }

    /// Closes a file it opened.
    func finish() {
        if ownsDescriptor { close(descriptor) }
    }

    /// Whether ``next()`` can return a line without reading (and so without waiting).
    var hasBufferedLine: Bool { buffer[start...].contains(10) }

    /// The next line, or nil at the end of the input.
    mutating func next() throws(CLIError) -> Line? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 10) {
                defer { start = newline + 1 }
                if skipping {
                    skipping = false
                    continue
                }
                var end = newline
                if end > start && buffer[end - 1] == 13 { end -= 1 }
                return .text(Array(buffer[start..<end]))
            }
            if buffer.count - start > Self.maximumLineByteCount && !skipping {
                skipping = true
                start = buffer.count
                return .tooLong
            }
            if skipping { start = buffer.count }
            if atEnd {
                guard start < buffer.count else { return nil }
                defer { start = buffer.count }
                return skipping ? nil : .text(Array(buffer[start...]))
            }
            try fill()
        }
    }

    private mutating func fill() throws(CLIError) {
        if start > 0 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        let oldCount = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: 65_536))
        var count = 0
        repeat {
            count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + oldCount, 65_536) }
        } while count < 0 && errno == EINTR
        buffer.removeSubrange((oldCount + max(count, 0))...)
        if count < 0 { throw .failure("cannot read \(path.map { "'\($0)'" } ?? "standard input"): \(String(cString: strerror(errno)))") }
        if count == 0 { atEnd = true }
    }
}
