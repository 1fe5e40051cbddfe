internal import PushSealPlatform

/// One line of a JSON-lines stream, without its `\n`.
public enum JSONLine: Sendable, Equatable {
    /// A line of at most the reader's ``JSONLineReader/maximumLineByteCount`` bytes.
    case complete([UInt8])
    /// A longer line, dropped as it was read: only its length is known.
    case tooLong(byteCount: Int)
}

/// Reads a byte stream as lines in bounded memory, whatever its length: the JSON lines of
/// ``NotificationSealer/seal(lines:keyProvider:limits:item:outcomes:)`` (`pushseal seal --batch`)
/// and of `pushseal send`, processed as they arrive (also by a co-process that writes one line
/// and waits for its result).
///
/// ``nextLines(maximumCount:maximumByteCount:)`` returns the complete lines already read before
/// it reads again, and reads only when it has none, so a caller that handles each group before
/// asking for the next never waits for input with a line in hand. Memory stays below
/// ``maximumLineByteCount`` plus one read of ``readSize``: a longer line is skipped as it
/// streams in and reported as ``JSONLine/tooLong(byteCount:)``.
public final class JSONLineReader<ReadError: Error> {
    /// The longest line returned as ``JSONLine/complete(_:)``.
    public let maximumLineByteCount: Int
    /// Bytes asked for per read.
    public static var readSize: Int { 64 * 1024 }

    /// Reads at most the buffer's count of bytes into it and returns how many; 0 at the end.
    private let read: (UnsafeMutableRawBufferPointer) throws(ReadError) -> Int
    /// Bytes read and not returned yet: `buffer[start...]`.
    private var buffer: [UInt8] = []
    /// What one read reads into.
    private var scratch = [UInt8](repeating: 0, count: JSONLineReader.readSize)
    private var start = 0
    /// The length so far of a too-long line being skipped.
    private var skipped: Int?
    private var atEnd = false

    /// A reader of the stream that `read` reads: it fills the buffer it is given with at most
    /// its count of bytes and returns how many it wrote, 0 at the end of the stream (it may
    /// wait for input; it retries interrupted reads itself).
    public init(maximumLineByteCount: Int, read: @escaping (UnsafeMutableRawBufferPointer) throws(ReadError) -> Int) {
        precondition(maximumLineByteCount >= 0, "maximumLineByteCount")
        self.maximumLineByteCount = maximumLineByteCount
        self.read = read
        buffer.reserveCapacity(Self.readSize)
    }

    /// The next lines: at least one and at most `maximumCount`, stopping once their bytes reach
    /// `maximumByteCount`; nil at the end of the stream. Returns the lines already buffered
    /// without reading; reads (and may wait for input) only when none is. A last line without
    /// a final `\n` is a line; an empty stream has none.
    public func nextLines(maximumCount: Int, maximumByteCount: Int) throws(ReadError) -> [JSONLine]? {
        var lines: [JSONLine] = []
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

    /// The next line, nil at the end of the stream (``nextLines(maximumCount:maximumByteCount:)``
    /// one line at a time).
    public func nextLine() throws(ReadError) -> JSONLine? {
        try nextLines(maximumCount: 1, maximumByteCount: .max)?.first
    }

    /// Whether the next line is already read, so asking for it will not wait for input.
    public var hasBufferedLine: Bool { nextNewline() != nil }

    /// The bytes held now (read and not yet returned): at most ``maximumLineByteCount`` plus
    /// one ``readSize``, whatever the stream's lines.
    public var bufferedByteCount: Int { buffer.count - start }

    /// The index of the first `\n` in `buffer[start...]` (memchr: this scan is the reader's hot loop).
    private func nextNewline() -> Int? {
        guard start < buffer.count else { return nil }
        return buffer.withUnsafeBytes { raw -> Int? in
            guard let found = memchr(raw.baseAddress! + start, Int32(UInt8(ascii: "\n")), raw.count - start) else { return nil }
            return UnsafeRawPointer(found) - raw.baseAddress!
        }
    }

    /// One read appended to the buffer; sets ``atEnd`` at the end of the stream.
    private func fill() throws(ReadError) {
        let read = self.read
        let count = try scratch.withUnsafeMutableBytes { raw in
            Result { () throws(ReadError) -> Int in try read(raw) }
        }.get()
        precondition(count >= 0 && count <= scratch.count, "a read returned \(count) of \(scratch.count) bytes")
        if count == 0 { atEnd = true }
        scratch.withUnsafeBufferPointer { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: $0[0..<count])) }
    }
}
