import PushSealPlatform

/// Reads a stream as lines in bounded memory, whatever its length: for JSON-lines input that is
/// processed as it arrives (`pushseal seal --batch`, also as a co-process that writes one line
/// and waits for its result).
///
/// ``nextLines(maximumCount:maximumByteCount:)`` returns the complete lines already read before
/// it reads again, and reads only when it has none, so a caller that handles each group before
/// asking for the next never waits for input with a line in hand. Memory stays below
/// ``maximumLineByteCount`` plus one read of ``readSize``: a longer line is skipped as it
/// streams in and reported as ``Line/tooLong(byteCount:)``.
public final class LineReader {
    /// One line, without its `\n`.
    public enum Line: Sendable, Equatable {
        /// A line of at most ``LineReader/maximumLineByteCount`` bytes.
        case complete([UInt8])
        /// A longer line, dropped as it was read: only its length is known.
        case tooLong(byteCount: Int)
    }

    /// The longest line returned as ``Line/complete(_:)``.
    public let maximumLineByteCount: Int
    /// Bytes asked for per `read(2)`.
    public static let readSize = 64 * 1024

    private let descriptor: Int32
    private let path: String?
    private let closesDescriptor: Bool
    /// Bytes read and not returned yet: `buffer[start...]`.
    private var buffer: [UInt8] = []
    /// What one `read(2)` reads into.
    private var scratch = [UInt8](repeating: 0, count: LineReader.readSize)
    private var start = 0
    /// The length so far of a too-long line being skipped.
    private var skipped: Int?
    private var atEnd = false

    /// A reader of `descriptor` (closed by `deinit` when `closesDescriptor`). `path` names the
    /// stream in errors (nil: standard input).
    public init(descriptor: Int32, path: String?, maximumLineByteCount: Int, closesDescriptor: Bool = false) {
        self.descriptor = descriptor
        self.path = path
        self.maximumLineByteCount = maximumLineByteCount
        self.closesDescriptor = closesDescriptor
        buffer.reserveCapacity(Self.readSize)
    }

    deinit {
        if closesDescriptor { close(descriptor) }
    }

    /// The next lines: at least one and at most `maximumCount`, stopping once their bytes reach
    /// `maximumByteCount`; nil at the end of the stream. Returns the lines already buffered
    /// without reading; reads (and may wait for input) only when none is. A last line without
    /// a final `\n` is a line; an empty stream has none.
    package func nextLines(maximumCount: Int, maximumByteCount: Int) throws(IOError) -> [Line]? {
        var lines: [Line] = []
        var byteCount = 0
        while true {
            while lines.count < maximumCount, byteCount < maximumByteCount, let newline = nextNewline() {
                let length = newline - start
                if let skipped {
                    lines.append(.tooLong(byteCount: skipped + length))
                    self.skipped = nil
                } else if length > maximumLineByteCount {
                    lines.append(.tooLong(byteCount: length))
                } else {
                    lines.append(.complete(Array(buffer[start..<newline])))
                    byteCount += length
                }
                start = newline + 1
            }
            if !lines.isEmpty { return lines }
            buffer.removeSubrange(0..<start)
            start = 0
            if atEnd {
                defer { buffer.removeAll(keepingCapacity: false) }
                if let skipped {
                    self.skipped = nil
                    return [.tooLong(byteCount: skipped + buffer.count)]
                }
                if buffer.isEmpty { return nil }
                return [buffer.count > maximumLineByteCount ? .tooLong(byteCount: buffer.count) : .complete(buffer)]
            }
            if skipped != nil || buffer.count > maximumLineByteCount {
                // Part of a line that is too long already: count it, do not keep it.
                skipped = (skipped ?? 0) + buffer.count
                buffer.removeAll(keepingCapacity: true)
            }
            try fill()
        }
    }

    /// The index of the first `\n` in `buffer[start...]` (memchr: this scan is the reader's hot loop).
    private func nextNewline() -> Int? {
        guard start < buffer.count else { return nil }
        return buffer.withUnsafeBytes { raw -> Int? in
            guard let found = memchr(raw.baseAddress! + start, Int32(UInt8(ascii: "\n")), raw.count - start) else { return nil }
            return UnsafeRawPointer(found) - raw.baseAddress!
        }
    }

    /// The next line, nil at the end of the stream (``nextLines(maximumCount:maximumByteCount:)``
    /// one line at a time).
    package func nextLine() throws(IOError) -> Line? {
        try nextLines(maximumCount: 1, maximumByteCount: .max)?.first
    }

    /// Whether the next line is already read, so asking for it will not wait for input.
    public var hasBufferedLine: Bool { nextNewline() != nil }

    /// One `read(2)` appended to the buffer; sets ``atEnd`` at the end of the stream.
    private func fill() throws(IOError) {
        while true {
            let count = scratch.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                let code = errno
                if code == EISDIR, let path { throw .isDirectory(path: path) }
                throw .cannotRead(path: path, errno: code)
            }
            if count == 0 { atEnd = true }
            scratch.withUnsafeBufferPointer { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: $0[0..<count])) }
            return
        }
    }
}
