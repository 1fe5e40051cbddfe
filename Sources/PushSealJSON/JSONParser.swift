/// A strict RFC 8259 parser: one value, nothing after it, UTF-8 validated, no duplicate member
/// names, bounded nesting. Used for contents and payloads, where a lenient parser would let two
/// implementations read one message two ways.
package enum JSONParser {
    /// Why a text is not accepted.
    package struct Error: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        /// Byte offset where the problem was found.
        package let offset: Int
        /// What is wrong.
        package let message: String
        /// The message with the byte offset, e.g. `duplicate member name "cid" at byte 17`.
        package var description: String { "\(message) at byte \(offset)" }
    }

    /// Parses `bytes` as exactly one JSON value. `maximumDepth` counts nested arrays and objects
    /// (a top-level object is depth 1).
    package static func parse(_ bytes: some Collection<UInt8>, maximumDepth: Int = 16) throws(Error) -> JSONValue {
        let attempt = { (buffer: UnsafeRawBufferPointer) in
            Result { () throws(Error) -> JSONValue in try parse(buffer, maximumDepth: maximumDepth) }
        }
        if let result = bytes.withContiguousStorageIfAvailable({ attempt(UnsafeRawBufferPointer($0)) }) {
            return try result.get()
        }
        return try Array(bytes).withUnsafeBytes(attempt).get()
    }

    /// Parses the bytes in `buffer` as exactly one JSON value.
    package static func parse(_ buffer: UnsafeRawBufferPointer, maximumDepth: Int = 16) throws(Error) -> JSONValue {
        try parse(buffer, maximumDepth: maximumDepth, rejectingDuplicateNames: true)
    }

    /// Parses like ``parse(_:maximumDepth:)`` (same strictness) but keeps every occurrence of a
    /// duplicated member name, in document order, instead of rejecting it. For the receiver's
    /// payload parsing, which must tell a duplicated sealed member (`malformed_envelope`) from a
    /// duplicate anywhere else (`not_sealed`): SPEC 10.1 and Appendix A.1.
    package static func parseKeepingDuplicateNames(_ bytes: some Collection<UInt8>, maximumDepth: Int = 16) throws(Error) -> JSONValue {
        let attempt = { (buffer: UnsafeRawBufferPointer) in
            Result { () throws(Error) -> JSONValue in try parse(buffer, maximumDepth: maximumDepth, rejectingDuplicateNames: false) }
        }
        if let result = bytes.withContiguousStorageIfAvailable({ attempt(UnsafeRawBufferPointer($0)) }) {
            return try result.get()
        }
        return try Array(bytes).withUnsafeBytes(attempt).get()
    }

    /// Parses like ``parseKeepingDuplicateNames(_:maximumDepth:)`` and also returns the byte
    /// offset of every repeated member name, in document order (the order in which a walk of
    /// the tree, each object's members in order before their values, meets the repeats): for
    /// `pushseal inspect`, which says where the receiver's duplicate is.
    package static func parseRecordingDuplicateNames(
        _ bytes: some Collection<UInt8>, maximumDepth: Int = 16
    ) throws(Error) -> (value: JSONValue, duplicateOffsets: [Int]) {
        let attempt = { (buffer: UnsafeRawBufferPointer) in
            Result { () throws(Error) -> (value: JSONValue, duplicateOffsets: [Int]) in
                var offsets: [Int] = []
                let value = try parse(buffer, maximumDepth: maximumDepth, rejectingDuplicateNames: false, duplicateOffsets: &offsets)
                return (value, offsets)
            }
        }
        if let result = bytes.withContiguousStorageIfAvailable({ attempt(UnsafeRawBufferPointer($0)) }) {
            return try result.get()
        }
        return try Array(bytes).withUnsafeBytes(attempt).get()
    }

    private static func parse(_ buffer: UnsafeRawBufferPointer, maximumDepth: Int, rejectingDuplicateNames: Bool) throws(Error) -> JSONValue {
        var reader = JSONReader(bytes: buffer, maximumDepth: maximumDepth)
        reader.rejectsDuplicateNames = rejectingDuplicateNames
        return try reader.parseDocument()
    }

    private static func parse(
        _ buffer: UnsafeRawBufferPointer, maximumDepth: Int, rejectingDuplicateNames: Bool, duplicateOffsets: inout [Int]
    ) throws(Error) -> JSONValue {
        var reader = JSONReader(bytes: buffer, maximumDepth: maximumDepth)
        reader.rejectsDuplicateNames = rejectingDuplicateNames
        reader.duplicateNameOffsets = []
        defer { duplicateOffsets = reader.duplicateNameOffsets ?? [] }
        return try reader.parseDocument()
    }
}

/// The strict reader behind ``JSONParser`` (internal: the scanners in JSONScanner.swift and the content
/// decoder reuse its primitives, so they accept exactly what the parser accepts).
package struct JSONReader {
    package let bytes: UnsafeRawBufferPointer
    package let maximumDepth: Int
    package var rejectsDuplicateNames = true
    /// When not nil (and duplicates are not rejected), the byte offset of each repeated member
    /// name is appended here.
    package var duplicateNameOffsets: [Int]?
    package var index = 0

    package init(bytes: UnsafeRawBufferPointer, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    package func error(_ message: String, at offset: Int? = nil) -> JSONParser.Error {
        JSONParser.Error(offset: offset ?? index, message: message)
    }

    package var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// Inlined: compact JSON has no whitespace, so the usual call is one comparison.
    @inline(__always)
    package mutating func skipWhitespace() {
        guard index < bytes.count, bytes[index] <= 0x20 else { return }
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Exactly one value, with optional whitespace around it and nothing after it.
    package mutating func parseDocument() throws(JSONParser.Error) -> JSONValue {
        skipWhitespace()
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw error("unexpected data after the JSON value") }
        return value
    }

    package mutating func parseValue(depth: Int) throws(JSONParser.Error) -> JSONValue {
        guard let byte = current else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return .object(try parseObject(depth: depth + 1))
        case UInt8(ascii: "["): return .array(try parseArray(depth: depth + 1))
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected character")
        }
    }

    package mutating func expectLiteral(_ literal: StaticString) throws(JSONParser.Error) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("invalid literal") }
        let expected = UnsafeRawBufferPointer(start: literal.utf8Start, count: count)
        for offset in 0..<count where bytes[index + offset] != expected[offset] {
            throw error("invalid literal")
        }
        index += count
    }

    package mutating func parseObject(depth: Int) throws(JSONParser.Error) -> JSONObject {
        guard depth <= maximumDepth else { throw error("nesting deeper than \(maximumDepth)") }
        index += 1
        var members: [JSONObject.Member] = []
        // Duplicate detection by UTF-8 bytes: a linear scan for small objects (no allocation),
        // a set of byte arrays once an object has many members.
        var names: Set<[UInt8]>?
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return JSONObject(members: members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let nameOffset = index
            let name = try parseString()
            if rejectsDuplicateNames || duplicateNameOffsets != nil, Self.isDuplicate(name, in: members, names: &names) {
                if rejectsDuplicateNames { throw error("duplicate member name \"\(name)\"", at: nameOffset) }
                duplicateNameOffsets!.append(nameOffset)
            }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            members.append(JSONObject.Member(name: name, value: try parseValue(depth: depth)))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return JSONObject(members: members)
            default: throw error("expected ',' or '}'")
            }
        }
    }

    /// Whether `name` (byte for byte) is already the name of one of `members`.
    package static func isDuplicate(_ name: String, in members: [JSONObject.Member], names: inout Set<[UInt8]>?) -> Bool {
        let linearLimit = 16
        if members.count < linearLimit {
            for member in members where UTF8Bytes.equal(member.name, name) { return true }
            return false
        }
        if names == nil { names = Set(members.map { Array($0.name.utf8) }) }
        return !names!.insert(Array(name.utf8)).inserted
    }

    package mutating func parseArray(depth: Int) throws(JSONParser.Error) -> [JSONValue] {
        guard depth <= maximumDepth else { throw error("nesting deeper than \(maximumDepth)") }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return elements
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return elements
            default: throw error("expected ',' or ']'")
            }
        }
    }

    /// Validates a number (RFC 8259 grammar, see `scanNumber`) and returns its literal.
    package mutating func parseNumber() throws(JSONParser.Error) -> String {
        let start = index
        try scanNumber()
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    package func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    /// Parses a string starting at the opening quote; validates UTF-8 and escapes.
    package mutating func parseString() throws(JSONParser.Error) -> String {
        index += 1
        let start = index
        // Fast path: no escapes, ASCII or valid UTF-8.
        while index < bytes.count {
            skipPlainASCII()
            guard index < bytes.count else { break }
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if c == UInt8(ascii: "\\") { break }
            if c < 0x20 { throw error("unescaped control character in string") }
            if c < 0x80 { index += 1 } else { try skipUTF8Sequence() }
        }
        var unescaped = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let c = bytes[index]
            switch c {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: unescaped, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard let escape = current else { throw error("unterminated escape") }
                index += 1
                switch escape {
                case UInt8(ascii: "\""): unescaped.append(0x22)
                case UInt8(ascii: "\\"): unescaped.append(0x5C)
                case UInt8(ascii: "/"): unescaped.append(0x2F)
                case UInt8(ascii: "b"): unescaped.append(0x08)
                case UInt8(ascii: "f"): unescaped.append(0x0C)
                case UInt8(ascii: "n"): unescaped.append(0x0A)
                case UInt8(ascii: "r"): unescaped.append(0x0D)
                case UInt8(ascii: "t"): unescaped.append(0x09)
                case UInt8(ascii: "u"): appendUTF8(of: try parseUnicodeEscape(), to: &unescaped)
                default: throw error("invalid escape", at: index - 2)
                }
            default:
                if c < 0x20 { throw error("unescaped control character in string") }
                let sequenceStart = index
                if c < 0x80 { index += 1 } else { try skipUTF8Sequence() }
                unescaped.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[sequenceStart..<index]))
            }
        }
        throw error("unterminated string")
    }

    /// Steps over plain ASCII string bytes eight at a time (none below 0x20, no `"`, no `\`, no
    /// high bit): exactly the bytes the byte-by-byte loops would step over one by one, stopping
    /// at the first other byte (found within its word, not byte by byte). Works on locals so the
    /// loop keeps its state in registers.
    @inline(__always)
    package mutating func skipPlainASCII() {
        guard let base = bytes.baseAddress else { return }
        let end = bytes.count
        var i = index
        while i + 8 <= end {
            let mask = Self.specialByteMask(UInt64(littleEndian: (base + i).loadUnaligned(as: UInt64.self)))
            if mask != 0 {
                i += mask.trailingZeroBitCount >> 3
                break
            }
            i += 8
        }
        index = i
    }

    /// The high bit of each byte of `word` (little-endian: the first byte is the lowest) that is
    /// below 0x20, `"`, `\` or 0x80 and above: ``JSONWriter/escapeByteMask(_:)`` plus the
    /// non-ASCII bytes. The lowest set bit marks exactly the first such byte; zero means none.
    @inline(__always)
    package static func specialByteMask(_ word: UInt64) -> UInt64 {
        JSONWriter.escapeByteMask(word) | (word & 0x8080_8080_8080_8080)
    }

    /// After `\u`: reads 4 hex digits, and a following `\uXXXX` low surrogate when needed.
    package mutating func parseUnicodeEscape() throws(JSONParser.Error) -> UInt32 {
        let escapeStart = index - 2
        let first = try readHex4()
        switch first {
        case 0xD800...0xDBFF:
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw error("lone high surrogate escape", at: escapeStart)
            }
            index += 2
            let second = try readHex4()
            guard (0xDC00...0xDFFF).contains(second) else { throw error("high surrogate not followed by a low surrogate", at: escapeStart) }
            return 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
        case 0xDC00...0xDFFF:
            throw error("lone low surrogate escape", at: escapeStart)
        default:
            return first
        }
    }

    package mutating func readHex4() throws(JSONParser.Error) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    package func appendUTF8(of scalar: UInt32, to output: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            output.append(UInt8(scalar))
        case 0x80..<0x800:
            output.append(UInt8(0xC0 | (scalar >> 6)))
            output.append(UInt8(0x80 | (scalar & 0x3F)))
        case 0x800..<0x10000:
            output.append(UInt8(0xE0 | (scalar >> 12)))
            output.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            output.append(UInt8(0x80 | (scalar & 0x3F)))
        default:
            output.append(UInt8(0xF0 | (scalar >> 18)))
            output.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
            output.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            output.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }

    /// Advances over one multi-byte UTF-8 sequence, rejecting overlongs, surrogates and values
    /// above U+10FFFF (RFC 3629 §4).
    package mutating func skipUTF8Sequence() throws(JSONParser.Error) {
        let lead = bytes[index]
        let length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: throw error("invalid UTF-8")
        }
        guard index + length <= bytes.count else { throw error("truncated UTF-8 sequence") }
        let second = bytes[index + 1]
        guard second >= low && second <= high else { throw error("invalid UTF-8") }
        for offset in 2..<max(length, 2) where bytes[index + offset] & 0xC0 != 0x80 {
            throw error("invalid UTF-8")
        }
        index += length
    }
}
