internal import PushSealPlatform

/// Validation without building values: the same grammar, UTF-8, escape and depth rules as
/// ``JSONParser`` (the same `JSONReader` primitives), but strings and numbers are only checked and
/// skipped. Used by fast paths that then fall back to the full parser for anything unusual: every
/// throw here means "take the general path", never a verdict.
extension JSONReader {
    /// Most members an object may have on a fast path (their names are compared pairwise).
    package static let fastPathMemberLimit = 16

    /// Validates one string at the opening quote and steps over it. Returns the byte range of its
    /// raw contents (between the quotes) and whether it contains escapes.
    package mutating func scanString() throws(JSONParser.Error) -> (range: Range<Int>, escaped: Bool) {
        index += 1
        let start = index
        var escaped = false
        while index < bytes.count {
            skipPlainASCII()
            guard index < bytes.count else { break }
            let c = bytes[index]
            switch c {
            case UInt8(ascii: "\""):
                index += 1
                return (start..<index - 1, escaped)
            case UInt8(ascii: "\\"):
                escaped = true
                index += 1
                guard let escape = current else { throw error("unterminated escape") }
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                     UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    break
                case UInt8(ascii: "u"): _ = try parseUnicodeEscape()
                default: throw error("invalid escape", at: index - 2)
                }
            default:
                if c < 0x20 { throw error("unescaped control character in string") }
                if c < 0x80 { index += 1 } else { try skipUTF8Sequence() }
            }
        }
        throw error("unterminated string")
    }

    /// A member name at its opening quote, validated like ``scanString()`` and stepped over;
    /// returns the range of its bytes. An escape throws at once (escaped names are for the
    /// general path, as after ``scanString()``).
    package mutating func scanName() throws(JSONParser.Error) -> Range<Int> {
        index += 1
        let start = index
        while true {
            skipPlainASCII()
            guard index < bytes.count else { throw error("unterminated string") }
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                index += 1
                return start..<index - 1
            }
            if c == UInt8(ascii: "\\") { throw error("escaped member name") }
            if c < 0x20 { throw error("unescaped control character in string") }
            if c < 0x80 { index += 1 } else { try skipUTF8Sequence() }
        }
    }

    /// Whether the `count` bytes at offsets `a` and `b` are equal (member names are short: a loop
    /// in place rather than a call to `memcmp`).
    @inline(__always)
    package func sameBytes(_ a: Int, _ b: Int, count: Int) -> Bool {
        guard count > 16 else {
            for offset in 0..<count where bytes[a + offset] != bytes[b + offset] { return false }
            return true
        }
        return memcmp(bytes.baseAddress! + a, bytes.baseAddress! + b, count) == 0
    }

    /// Validates one number and steps over it.
    package mutating func scanNumber() throws(JSONParser.Error) {
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, isDigit(first) else { throw error("invalid number") }
        index += 1
        if first != UInt8(ascii: "0") {
            while let c = current, isDigit(c) { index += 1 }
        } else if let c = current, isDigit(c) {
            throw error("leading zero in number")
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard let c = current, isDigit(c) else { throw error("invalid fraction") }
            while let c = current, isDigit(c) { index += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let c = current, isDigit(c) else { throw error("invalid exponent") }
            while let c = current, isDigit(c) { index += 1 }
        }
    }

    /// Validates one value and steps over it. Objects must have unescaped, pairwise distinct
    /// names and at most ``fastPathMemberLimit`` members (otherwise: throws, take the general path).
    package mutating func skipValue(depth: Int) throws(JSONParser.Error) {
        guard let byte = current else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): try skipObject(depth: depth + 1)
        case UInt8(ascii: "["): try skipArray(depth: depth + 1)
        case UInt8(ascii: "\""): _ = try scanString()
        case UInt8(ascii: "t"): try expectLiteral("true")
        case UInt8(ascii: "f"): try expectLiteral("false")
        case UInt8(ascii: "n"): try expectLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try scanNumber()
        default: throw error("unexpected character")
        }
    }

    /// Steps over an object; `visit` sees each member's name range and is called with the reader
    /// at the start of the value, which it must consume (or leave to ``skipValue(depth:)`` by
    /// returning false).
    package mutating func scanObject(
        depth: Int, _ visit: (Range<Int>, inout JSONReader) throws(JSONParser.Error) -> Bool = { _, _ in false }
    ) throws(JSONParser.Error) {
        guard depth <= maximumDepth else { throw error("nesting deeper than \(maximumDepth)") }
        index += 1
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return
        }
        try withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: Self.fastPathMemberLimit) { names throws(JSONParser.Error) in
            var count = 0
            while true {
                skipWhitespace()
                guard current == UInt8(ascii: "\"") else { throw error("expected a member name") }
                let name = try scanName()
                guard count < Self.fastPathMemberLimit else { throw error("too many members for the fast path") }
                for earlier in names[0..<count] where earlier.count == name.count {
                    if sameBytes(earlier.lowerBound, name.lowerBound, count: name.count) { throw error("duplicate member name") }
                }
                names[count] = name
                count += 1
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { throw error("expected ':'") }
                index += 1
                skipWhitespace()
                if try !visit(name, &self) { try skipValue(depth: depth) }
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "}"): index += 1; return
                default: throw error("expected ',' or '}'")
                }
            }
        }
    }

    package mutating func skipObject(depth: Int) throws(JSONParser.Error) {
        try scanObject(depth: depth)
    }

    package mutating func skipArray(depth: Int) throws(JSONParser.Error) {
        guard depth <= maximumDepth else { throw error("nesting deeper than \(maximumDepth)") }
        index += 1
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            try skipValue(depth: depth)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return
            default: throw error("expected ',' or ']'")
            }
        }
    }

    /// Whether the bytes in `range` are exactly `name` (member names are short: compared in
    /// place, without a call).
    @inline(__always)
    package func bytes(_ range: Range<Int>, equal name: StaticString) -> Bool {
        guard range.count == name.utf8CodeUnitCount else { return false }
        let base = bytes.baseAddress! + range.lowerBound
        let expected = name.utf8Start
        for offset in 0..<range.count where base.load(fromByteOffset: offset, as: UInt8.self) != expected[offset] { return false }
        return true
    }
}
