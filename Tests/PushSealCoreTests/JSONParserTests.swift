import PushSealTestSupport
import Testing
@testable import PushSealCore
@testable import PushSealJSON

/// The word-at-a-time string scan stops exactly where a byte-by-byte scan would.
@Suite struct PlainASCIISkipTests {
    static func isSpecial(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte >= 0x80
    }

    @Test func specialByteMaskMarksTheFirstSpecialByteExactly() {
        var generator = TestSeed.generator()
        let interesting: [UInt8] = [0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0x81, 0xA0, 0xC3, 0xFF, 0x41]
        for _ in 0..<200_000 {
            var bytes = (0..<8).map { _ in
                Bool.random(using: &generator) ? interesting.randomElement(using: &generator)! : UInt8.random(in: 0x20...0x7E, using: &generator)
            }
            if Int.random(in: 0..<4, using: &generator) == 0 { bytes = bytes.map { Self.isSpecial($0) ? 0x61 : $0 } }
            let word = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
            let mask = JSONReader.specialByteMask(word)
            if let first = bytes.firstIndex(where: Self.isSpecial) {
                #expect(mask != 0 && mask.trailingZeroBitCount >> 3 == first, "\(bytes)")
            } else {
                #expect(mask == 0, "\(bytes)")
            }
        }
    }

    @Test func escapeByteMaskMarksTheFirstByteToEscapeExactly() {
        var generator = TestSeed.generator()
        let interesting: [UInt8] = [0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0xA2, 0xDC, 0xFF]
        func needsEscape(_ byte: UInt8) -> Bool { byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") }
        for _ in 0..<200_000 {
            let bytes = (0..<8).map { _ in
                Bool.random(using: &generator) ? interesting.randomElement(using: &generator)! : UInt8.random(in: 0...0xFF, using: &generator)
            }
            let word = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
            let mask = JSONWriter.escapeByteMask(word)
            if let first = bytes.firstIndex(where: needsEscape) {
                #expect(mask != 0 && mask.trailingZeroBitCount >> 3 == first, "\(bytes)")
                #expect(JSONWriter.mayNeedEscape(word))
            } else {
                #expect(mask == 0 && !JSONWriter.mayNeedEscape(word), "\(bytes)")
            }
        }
    }

    @Test func stringsWithSpecialBytesAnywhereParseAsByteByByte() throws {
        // Every position of an escape, a multi-byte sequence or a control byte relative to the
        // eight-byte words, and every length around them; the string is followed by another value.
        let inserts: [(json: String, text: String)] = [("\\n", "\n"), ("\\\"", "\""), ("\u{E9}", "\u{E9}"), ("\u{1F44B}", "\u{1F44B}"), ("\\u0041", "A")]
        for length in 0..<40 {
            for position in 0...length {
                let before = String(repeating: "a", count: position), after = String(repeating: "b", count: length - position)
                for insert in inserts {
                    let json = Array("[\"\(before)\(insert.json)\(after)\",\"\(after)\"]".utf8)
                    let value = try JSONParser.parse(json)
                    #expect(value == .array([.string(before + insert.text + after), .string(after)]), "\(length) \(position)")
                }
                var bad = Array("\"\(before)\(after)\"".utf8)
                bad.insert(0x01, at: 1 + position)
                #expect(throws: JSONParser.Error.self) { try JSONParser.parse(bad) }
                var invalid = Array("\"\(before)\(after)\"".utf8)
                invalid.insert(0xC3, at: 1 + position)
                #expect(throws: JSONParser.Error.self) { try JSONParser.parse(invalid) }
            }
        }
    }
}

@Suite("Strict JSON")
struct JSONParserTests {
    func parse(_ text: String, depth: Int = 16) throws -> JSONValue {
        try JSONParser.parse(Array(text.utf8), maximumDepth: depth)
    }

    @Test("accepts RFC 8259 documents", arguments: [
        "{}", "[]", " {\"a\" : [1, -0, 0.5, 1e3, -2.5E-3, true, false, null, \"\"]}\n", "\"\\u00e9\\ud83d\\ude00\\/\"", "0", "-1",
    ])
    func accepts(text: String) throws {
        _ = try parse(text)
    }

    @Test("rejects non-strict documents", arguments: [
        "", " ", "{", "{\"a\":1,}", "[1,]", "{'a':1}", "{\"a\":01}", "{\"a\":1.}", "{\"a\":.5}", "{\"a\":+1}",
        "{\"a\":NaN}", "{\"a\":Infinity}", "{\"a\":1}x", "{\"a\":1}{}", "// c\n{}", "{\"a\":\"\u{01}\"}",
        "{\"a\":\"\\x41\"}", "{\"a\":\"\\ud800\"}", "{\"a\":\"\\udc00\"}", "{\"a\":\"\\ud800\\u0041\"}", "{\"a\":\"\\u12\"}",
        "{\"a\":tru}", "{\"a\" 1}", "{1:2}", "[1 2]", "\u{feff}{}", "{\"a\":1,\"a\":2}", "{\"a\":{\"b\":1,\"b\":1}}",
    ])
    func rejects(text: String) {
        #expect(throws: JSONParser.Error.self) { try parse(text) }
    }

    @Test("rejects invalid UTF-8 inside strings", arguments: [
        [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80], [0x80], [0xC3], [0xE2, 0x82],
    ] as [[UInt8]])
    func rejectsInvalidUTF8(sequence: [UInt8]) {
        let document: [UInt8] = Array("{\"a\":\"".utf8) + sequence + Array("\"}".utf8)
        #expect(throws: JSONParser.Error.self) { try JSONParser.parse(document) }
    }

    @Test("duplicate names are compared by bytes, not canonical equivalence")
    func duplicatesByBytes() throws {
        let value = try parse("{\"\u{e9}\":1,\"e\u{301}\":2}")
        #expect(value.objectValue?.members.count == 2)
        #expect(throws: JSONParser.Error.self) { try parse("{\"\\u00e9\":1,\"\u{e9}\":2}") }
    }

    @Test("duplicates are found in small and large objects, first or last, at the second occurrence", arguments: [2, 15, 16, 17, 40])
    func duplicatesInObjectsOfEverySize(memberCount: Int) throws {
        let names = (0..<memberCount).map { "n\($0)" }
        let unique = "{" + names.map { "\"\($0)\":1" }.joined(separator: ",") + "}"
        #expect(try parse(unique).objectValue?.members.count == memberCount)
        for repeated in [names[0], names[memberCount - 1]] {
            let document = String(unique.dropLast()) + ",\"\(repeated)\":2}"
            #expect(throws: JSONParser.Error(offset: unique.utf8.count, message: "duplicate member name \"\(repeated)\"")) {
                try parse(document)
            }
            // The same name spelled with an escape is the same name.
            let escaped = String(unique.dropLast()) + ",\"\\u006e" + repeated.dropFirst() + "\":2}"
            #expect(throws: JSONParser.Error.self) { try parse(escaped) }
        }
    }

    @Test("long plain strings, and strings with a special byte at every position", arguments: [0, 1, 7, 8, 9, 15, 16, 17, 64])
    func stringScanning(length: Int) throws {
        let plain = String(repeating: "x", count: length)
        #expect(try parse("\"\(plain)\"").stringValue == plain)
        for position in 0..<length {
            var bytes = Array(plain.utf8)
            bytes[position] = 0x01
            #expect(throws: JSONParser.Error.self) { try JSONParser.parse(Array("\"".utf8) + bytes + Array("\"".utf8)) }
            bytes[position] = UInt8(ascii: "\"")
            #expect(throws: JSONParser.Error.self) { try JSONParser.parse(Array("\"".utf8) + bytes + Array("\"".utf8)) }
            var utf8 = Array(plain.utf8)
            utf8.replaceSubrange(position...position, with: [0xC3, 0xA9])
            #expect(try JSONParser.parse(Array("\"".utf8) + utf8 + Array("\"".utf8)).stringValue == String(decoding: utf8, as: UTF8.self))
            utf8[position] = 0xC3
            utf8[position + 1] = 0x28   // invalid continuation
            #expect(throws: JSONParser.Error.self) { try JSONParser.parse(Array("\"".utf8) + utf8 + Array("\"".utf8)) }
        }
    }

    @Test("nesting depth is bounded")
    func depth() throws {
        let ok = String(repeating: "[", count: 16) + String(repeating: "]", count: 16)
        let deep = String(repeating: "[", count: 17) + String(repeating: "]", count: 17)
        _ = try parse(ok)
        #expect(throws: JSONParser.Error.self) { try parse(deep) }
        // Far deeper than the limit must fail cleanly, not overflow the stack.
        let huge = String(repeating: "[", count: 100_000)
        #expect(throws: JSONParser.Error.self) { try parse(huge) }
    }

    @Test("escapes decode to the right scalars and re-encode deterministically")
    func escapes() throws {
        let value = try parse("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u0001\\u00e9\\ud83d\\ude00\"")
        #expect(value.stringValue == "a\"b\\c/d\u{8}\u{c}\n\r\t\u{1}\u{e9}\u{1F600}")
        #expect(value.compactText == "\"a\\\"b\\\\c/d\\b\\f\\n\\r\\t\\u0001\u{e9}\u{1F600}\"")
    }

    @Test("integer form")
    func integers() throws {
        #expect(try parse("42").integerValue == 42)
        #expect(try parse("-7").integerValue == -7)
        #expect(try parse("4.0").integerValue == nil)
        #expect(try parse("4e1").integerValue == nil)
        #expect(try parse("99999999999999999999").integerValue == nil)
    }
}
