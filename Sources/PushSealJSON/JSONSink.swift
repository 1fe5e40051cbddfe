/// Where deterministic JSON bytes go: ``JSONWriter``'s growable array, or a fixed buffer
/// (``BoundedJSONWriter``). The escaping and number formatting are written once, generically,
/// so every sink produces the same bytes.
package protocol JSONSink {
    /// Appends bytes that are already JSON.
    mutating func appendBytes(_ bytes: UnsafeRawBufferPointer)
    /// Appends one byte that is already JSON.
    mutating func appendByte(_ byte: UInt8)
}

extension JSONSink {
    /// Appends a static ASCII/UTF-8 literal.
    @inline(__always)
    package mutating func appendLiteral(_ literal: StaticString) {
        appendBytes(UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Appends `value` as a quoted, escaped JSON string.
    @inline(__always)
    package mutating func appendEscapedString(_ value: String) {
        var value = value
        value.withUTF8 { appendEscapedString(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// Appends UTF-8 bytes as a quoted JSON string: `"` and `\` escaped, control characters as
    /// `\b \f \n \r \t` or `\u00xx` (lowercase hex), everything else literal.
    package mutating func appendEscapedString(utf8: UnsafeRawBufferPointer) {
        appendByte(UInt8(ascii: "\""))
        var runStart = 0
        var index = 0
        let count = utf8.count
        while index < count {
            // Skip eight bytes at a time while none of them needs escaping. (Swift's SIMD16 types
            // were tried here: they compile to scalar code and cost 5x more instructions.)
            if index + 8 <= count, !JSONWriter.mayNeedEscape(utf8.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                index += 8
                continue
            }
            let c = utf8[index]
            index += 1
            guard c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") else { continue }
            if index - 1 > runStart { appendBytes(UnsafeRawBufferPointer(rebasing: utf8[runStart..<index - 1])) }
            runStart = index
            appendByte(UInt8(ascii: "\\"))
            switch c {
            case UInt8(ascii: "\""): appendByte(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): appendByte(UInt8(ascii: "\\"))
            case 0x08: appendByte(UInt8(ascii: "b"))
            case 0x0C: appendByte(UInt8(ascii: "f"))
            case 0x0A: appendByte(UInt8(ascii: "n"))
            case 0x0D: appendByte(UInt8(ascii: "r"))
            case 0x09: appendByte(UInt8(ascii: "t"))
            default:
                appendLiteral("u00")
                appendByte(JSONWriter.hexDigit(c >> 4))
                appendByte(JSONWriter.hexDigit(c & 0xF))
            }
        }
        if count > runStart { appendBytes(UnsafeRawBufferPointer(rebasing: utf8[runStart..<count])) }
        appendByte(UInt8(ascii: "\""))
    }

    /// Appends an integer in plain decimal (the same digits as `String(value)`).
    package mutating func appendDecimal(_ value: Int64) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            // The magnitude as UInt64 (Int64.min has no positive Int64).
            var magnitude = value.magnitude
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(truncatingIfNeeded: magnitude % 10) + UInt8(ascii: "0")
                magnitude /= 10
            } while magnitude != 0
            if value < 0 { appendByte(UInt8(ascii: "-")) }
            appendBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(digits)[start..<20]))
        }
    }
}

/// Writes JSON into a fixed buffer; stops writing (and reports it) when the next bytes would not
/// fit. For hot paths that know the largest acceptable size (the provider's content budget).
package struct BoundedJSONWriter: JSONSink {
    private let base: UnsafeMutableRawPointer
    private let capacity: Int
    /// Bytes written so far (the valid prefix when ``overflowed``).
    package private(set) var count = 0
    /// True once something did not fit; nothing is written after that.
    package private(set) var overflowed = false

    /// A writer over `buffer`.
    package init(_ buffer: UnsafeMutableRawBufferPointer) {
        // An empty buffer may have no address; it is never written (capacity 0).
        base = buffer.baseAddress ?? UnsafeMutableRawPointer(bitPattern: 16)!
        capacity = buffer.count
    }

    /// Appends bytes that are already JSON (punctuation, a name with its quotes, …).
    package mutating func appendRaw(_ literal: StaticString) {
        appendLiteral(literal)
    }

    /// Appends bytes that are already JSON.
    package mutating func appendRaw(bytes: UnsafeRawBufferPointer) {
        appendBytes(bytes)
    }

    /// Appends the UTF-8 bytes of `text`, which is already JSON (a number's text).
    package mutating func appendRaw(text: String) {
        var text = text
        text.withUTF8 { appendBytes(UnsafeRawBufferPointer($0)) }
    }

    /// Appends `value` as a quoted, escaped JSON string (``JSONWriter/appendString(_:)``'s bytes).
    package mutating func appendString(_ value: String) {
        appendEscapedString(value)
    }

    /// Appends an integer in plain decimal.
    package mutating func appendInteger(_ value: Int64) {
        appendDecimal(value)
    }

    @inline(__always)
    package mutating func appendBytes(_ bytes: UnsafeRawBufferPointer) {
        guard !overflowed, bytes.count <= capacity - count else {
            overflowed = true
            return
        }
        if let source = bytes.baseAddress { (base + count).copyMemory(from: source, byteCount: bytes.count) }
        count += bytes.count
    }

    @inline(__always)
    package mutating func appendByte(_ byte: UInt8) {
        guard !overflowed, count < capacity else {
            overflowed = true
            return
        }
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }
}
