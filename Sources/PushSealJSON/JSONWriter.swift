/// Writes compact JSON bytes with PushSeal's deterministic string escaping: `"` and `\`
/// escaped, control characters as `\b \f \n \r \t` or `\u00xx`, everything else literal UTF-8.
package struct JSONWriter: Sendable, JSONSink {
    /// The bytes written so far.
    package private(set) var bytes: [UInt8]

    /// An empty writer, optionally with room reserved for `capacity` bytes.
    package init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// The bytes written so far, as a string.
    package var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Lowercase hexadecimal digit of a nibble (0...15).
    @inline(__always)
    package static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// Appends bytes that are already JSON (punctuation, a name with its quotes, …).
    @inline(__always)
    package mutating func appendRaw(_ raw: StaticString) {
        raw.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends raw bytes that are already valid JSON text.
    @inline(__always)
    package mutating func appendRaw(bytes raw: some Sequence<UInt8>) {
        bytes.append(contentsOf: raw)
    }

    @inline(__always)
    package mutating func appendBytes(_ raw: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: raw)
    }

    @inline(__always)
    package mutating func appendByte(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// Appends `value` as a quoted, escaped JSON string.
    package mutating func appendString(_ value: String) {
        appendEscapedString(value)
    }

    /// Appends UTF-8 bytes as a quoted, escaped JSON string.
    package mutating func appendString(utf8: UnsafeRawBufferPointer) {
        appendEscapedString(utf8: utf8)
    }

    /// False only when none of the eight bytes of `word` is below 0x20, `"` or `\`
    /// (exact "has byte" tests: no false negatives; a true result is rechecked byte by byte).
    @inline(__always)
    package static func mayNeedEscape(_ word: UInt64) -> Bool {
        escapeByteMask(word) != 0
    }

    /// The high bit of each byte of `word` (little-endian: the first byte is the lowest) that is
    /// below 0x20, `"` or `\` — the bytes a JSON string must escape. Only bytes after a marked
    /// byte can be marked wrongly (a borrow runs upwards only): the lowest set bit marks exactly
    /// the first such byte, and a zero mask means there is none. Shared by the writer's escape
    /// scan and the parser's string scan.
    @inline(__always)
    package static func escapeByteMask(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let below = (word &- ones &* 0x20) & ~word & highs
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let hasQuote = (quote &- ones) & ~quote & highs
        let hasBackslash = (backslash &- ones) & ~backslash & highs
        return below | hasQuote | hasBackslash
    }

    /// Number of bytes `value` takes as an escaped, quoted JSON string.
    package static func encodedLength(ofString value: String) -> Int {
        var length = 2
        for c in value.utf8 {
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x08, 0x0C, 0x0A, 0x0D, 0x09: length += 2
            case 0..<0x20: length += 6
            default: length += 1
            }
        }
        return length
    }

    /// Appends an integer in plain decimal.
    package mutating func appendInteger(_ value: Int64) {
        appendDecimal(value)
    }

    /// Appends `value` compactly (member order preserved, number literals as parsed).
    package mutating func append(_ value: JSONValue) {
        switch value {
        case .null: appendRaw("null")
        case let .bool(flag): flag ? appendRaw("true") : appendRaw("false")
        case let .number(literal): bytes.append(contentsOf: literal.utf8)
        case let .string(text): appendString(text)
        case let .array(elements):
            bytes.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { bytes.append(UInt8(ascii: ",")) }
                append(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case let .object(object):
            bytes.append(UInt8(ascii: "{"))
            for (offset, member) in object.members.enumerated() {
                if offset > 0 { bytes.append(UInt8(ascii: ",")) }
                appendString(member.name)
                bytes.append(UInt8(ascii: ":"))
                append(member.value)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }
}

extension JSONWriter {
    /// Appends `value` pretty-printed: two-space indentation, one member or element per line,
    /// `": "` after names, member order preserved. Deterministic, for files people read (vectors).
    package mutating func appendPretty(_ value: JSONValue, indentation: Int = 0) {
        let inner = [UInt8](repeating: 0x20, count: (indentation + 1) * 2)
        let outer = [UInt8](repeating: 0x20, count: indentation * 2)
        switch value {
        case let .array(elements) where elements.allSatisfy(\.isScalar):
            appendRaw("[")
            for (offset, element) in elements.enumerated() {
                if offset > 0 { appendRaw(", ") }
                append(element)
            }
            appendRaw("]")
        case let .array(elements):
            appendRaw("[\n")
            for (offset, element) in elements.enumerated() {
                if offset > 0 { appendRaw(",\n") }
                appendRaw(bytes: inner)
                appendPretty(element, indentation: indentation + 1)
            }
            appendRaw("\n")
            appendRaw(bytes: outer)
            appendRaw("]")
        case let .object(object) where !object.members.isEmpty:
            appendRaw("{\n")
            for (offset, member) in object.members.enumerated() {
                if offset > 0 { appendRaw(",\n") }
                appendRaw(bytes: inner)
                appendString(member.name)
                appendRaw(": ")
                appendPretty(member.value, indentation: indentation + 1)
            }
            appendRaw("\n")
            appendRaw(bytes: outer)
            appendRaw("}")
        default:
            append(value)
        }
    }
}
