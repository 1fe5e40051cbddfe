import PushSealTestSupport
import Testing
import PushSealCore

@Suite("Strict base64url")
struct Base64URLTests {
    @Test("RFC 4648 test vectors, url-safe and unpadded", arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
    ])
    func rfcVectors(plain: String, encoded: String) throws {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(try Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test("uses - and _ instead of + and /")
    func urlAlphabet() throws {
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(throws: Base64URL.DecodingError.invalidCharacter(offset: 0)) { try Base64URL.decode("+/+/") }
    }

    @Test("round-trips every length 0...300")
    func roundTrip() throws {
        var generator = TestSeed.generator()
        for length in 0...300 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Base64URL.encode(bytes)
            #expect(encoded.utf8.count == Base64URL.encodedLength(of: length))
            #expect(try Base64URL.decode(encoded) == bytes)
        }
    }

    /// A bit-at-a-time encoder, obviously correct, for checking the table-driven fast paths.
    static func referenceEncode(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var bits: [Bool] = []
        for byte in bytes { for shift in (0..<8).reversed() { bits.append((byte >> shift) & 1 == 1) } }
        var text = ""
        var index = 0
        while index < bits.count {
            var value = 0
            for offset in 0..<6 { value = value << 1 | (index + offset < bits.count && bits[index + offset] ? 1 : 0) }
            text.append(alphabet[value])
            index += 6
        }
        return text
    }

    @Test("encodes every length 0...300 exactly as a bit-by-bit reference (all fast-path alignments)")
    func matchesReferenceEncoder() throws {
        var generator = TestSeed.generator()
        for length in 0...300 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let expected = Self.referenceEncode(bytes)
            #expect(Base64URL.encode(bytes) == expected, "length \(length)")
            #expect(try Base64URL.decode(expected) == bytes, "length \(length)")
            // Slices at every offset: the fast path reads unaligned words.
            if length >= 9 {
                let slice = Array(bytes[3...])
                #expect(Base64URL.encode(bytes[3...]) == Self.referenceEncode(slice))
            }
        }
        let all = (0..<256).map { UInt8($0) }
        #expect(Base64URL.encode(all) == Self.referenceEncode(all))
    }

    @Test("a bad character is reported at its offset, wherever it is")
    func badCharacterOffsets() throws {
        // Lengths past 16 reach the two-group steps (eight characters at a time).
        for length in [2, 3, 4, 7, 8, 11, 12, 15, 16, 19, 20, 23, 24, 27, 28, 30, 43, 64, 66, 67, 100, 131] {
            let valid = Self.referenceEncode([UInt8](repeating: 0, count: length * 3 / 4)).prefix(length)
            guard length % 4 != 1, let _ = try? Base64URL.decode(String(valid)) else { continue }
            for position in 0..<length {
                for (bad, expected) in [("!", { Base64URL.DecodingError.invalidCharacter(offset: $0) }), ("=", { Base64URL.DecodingError.paddingCharacter(offset: $0) }),
                                        ("\u{7F}", { Base64URL.DecodingError.invalidCharacter(offset: $0) })] {
                    var characters = Array(valid)
                    characters[position] = Character(bad)
                    #expect(throws: expected(position)) { try Base64URL.decode(String(characters)) }
                }
            }
        }
    }

    @Test("a byte outside ASCII is reported at its offset, wherever it is")
    func highByteOffsets() throws {
        for length in [16, 24, 32, 64, 96, 100] {
            let valid = Array(Self.referenceEncode((0..<(length * 3 / 4)).map { UInt8(truncatingIfNeeded: $0 &* 37) }).utf8)
            for position in 0..<valid.count {
                for bad: UInt8 in [0x80, 0xC3, 0xFF, 0x00] {
                    var bytes = valid
                    bytes[position] = bad
                    #expect(throws: Base64URL.DecodingError.invalidCharacter(offset: position)) {
                        try bytes.withUnsafeBytes { try Base64URL.decode(ascii: $0) }
                    }
                }
            }
        }
    }

    @Test("decodes substrings and non-native strings like arrays")
    func decodesEveryStringForm() throws {
        let bytes = (0..<100).map { UInt8($0 * 7 & 0xFF) }
        let text = Base64URL.encode(bytes)
        #expect(try Base64URL.decode(text) == bytes)
        #expect(try Base64URL.decode(("xx" + text).dropFirst(2)) == bytes)
        #expect(try text.utf8.withContiguousStorageIfAvailable { try Base64URL.decode(ascii: UnsafeRawBufferPointer($0)) } == bytes)
    }

    @Test("rejects padding")
    func rejectsPadding() {
        #expect(throws: Base64URL.DecodingError.paddingCharacter(offset: 2)) { try Base64URL.decode("Zg==") }
        #expect(throws: Base64URL.DecodingError.paddingCharacter(offset: 3)) { try Base64URL.decode("Zm8=") }
    }

    @Test("rejects characters outside the alphabet", arguments: ["Zm9v\n", "Zm 9", "Zm9v!", "Zm9\u{e9}", "Zm9v\0", "YW.j"])
    func rejectsForeignCharacters(input: String) {
        #expect(throws: Base64URL.DecodingError.self) { try Base64URL.decode(input) }
    }

    @Test("rejects impossible lengths", arguments: ["Z", "Zm9vY", "Zm9vYmFyZ"])
    func rejectsImpossibleLength(input: String) {
        #expect(throws: Base64URL.DecodingError.impossibleLength(input.utf8.count)) { try Base64URL.decode(input) }
    }

    @Test("rejects non-zero trailing bits", arguments: ["Zh", "Zm9", "Zm9vYh", "Zm9vYmF"])
    func rejectsTrailingBits(input: String) {
        #expect(throws: Base64URL.DecodingError.nonZeroTrailingBits) { try Base64URL.decode(input) }
    }
}

@Suite("ISO/IEC 7816-4 padding")
struct PaddingTests {
    @Test("padded length is the next multiple of the block, always adding at least one byte")
    func paddedLength() {
        #expect(Padding.paddedLength(contentLength: 0, blockSize: 256) == 256)
        #expect(Padding.paddedLength(contentLength: 255, blockSize: 256) == 256)
        #expect(Padding.paddedLength(contentLength: 256, blockSize: 256) == 512)
        #expect(Padding.paddedLength(contentLength: 5, blockSize: 1) == 6)
    }

    @Test("pad then unpad without knowing the block size")
    func roundTrip() {
        for block in [1, 16, 32, 256] {
            for length in [0, 1, 15, 16, 31, 255] {
                let content = [UInt8](repeating: 0x80, count: length)  // content ending in 0x80 is fine
                let padded = Padding.pad(content, toLength: Padding.paddedLength(contentLength: length, blockSize: block))
                #expect(padded.count % block == 0)
                #expect(Padding.unpaddedLength(of: padded) == length)
            }
        }
    }

    @Test("padding in place overwrites whatever follows the content, and equals the array form")
    func padInPlace() {
        for (length, total) in [(0, 1), (3, 4), (5, 64), (100, 256)] {
            let content = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 7 + 1) }
            var buffer = content + [UInt8](repeating: 0xAA, count: total - length)  // stale bytes
            buffer.withUnsafeMutableBytes { Padding.pad($0, contentLength: length) }
            #expect(buffer == Padding.pad(content, toLength: total))
            #expect(buffer[length] == 0x80 && buffer[(length + 1)...].allSatisfy { $0 == 0 })
            #expect(Padding.unpaddedLength(of: buffer) == length)
        }
    }

    @Test("unpadding agrees with a byte-at-a-time reference for a stray byte anywhere")
    func unpaddingMatchesReference() {
        func reference(_ padded: [UInt8]) -> Int? {
            var index = padded.count - 1
            while index >= 0 {
                if padded[index] == 0x80 { return index }
                if padded[index] != 0 { return nil }
                index -= 1
            }
            return nil
        }
        // Past 32 bytes the 32-byte steps are reached; 100 and 257 leave every alignment of the rest.
        for total in [1, 7, 8, 9, 16, 17, 31, 32, 33, 40, 63, 64, 65, 100, 257] {
            for marker in 0..<total {
                var padded = [UInt8](repeating: 0x41, count: marker) + [0x80] + [UInt8](repeating: 0, count: total - marker - 1)
                #expect(Padding.unpaddedLength(of: padded) == marker)
                for stray in marker..<total {
                    let saved = padded[stray]
                    padded[stray] = 0x01
                    #expect(Padding.unpaddedLength(of: padded) == reference(padded), "total \(total) marker \(marker) stray \(stray)")
                    padded[stray] = saved
                }
            }
            #expect(Padding.unpaddedLength(of: [UInt8](repeating: 0, count: total)) == nil)
        }
    }

    @Test("malformed padding is detected", arguments: [
        [UInt8](), [0x00], [0x00, 0x00], [0x41, 0x80, 0x01], [0x41, 0x80, 0x00, 0x7F], [0x41, 0x81],
    ])
    func malformed(padded: [UInt8]) {
        #expect(Padding.unpaddedLength(of: padded) == nil)
    }
}
