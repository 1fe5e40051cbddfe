import PushSealCore
import Testing
import PushSealJSON

@Suite("UTF8Bytes")
struct UTF8BytesTests {
    @Test("equal compares bytes, not Unicode equivalence")
    func byteEquality() {
        #expect(UTF8Bytes.equal("café", "café"))
        #expect(!UTF8Bytes.equal("caf\u{E9}", "cafe\u{301}"))   // equal as Swift Strings, not as bytes
        #expect(!UTF8Bytes.equal("a", "ab"))
        #expect(UTF8Bytes.equal("", ""))
    }

    @Test("unsharedCopy: the same bytes in storage of its own", arguments: [0, 1, 15, 16, 17, 100, 5_000])
    func unsharedCopy(length: Int) {
        var original = String(decoding: (0..<length).map { UInt8(0x61 + $0 % 26) }, as: UTF8.self)
        var copy = UTF8Bytes.unsharedCopy(original)
        #expect(UTF8Bytes.equal(copy, original))
        if length > 15 {
            let originalAddress = original.withUTF8 { UInt(bitPattern: $0.baseAddress) }
            let copyAddress = copy.withUTF8 { UInt(bitPattern: $0.baseAddress) }
            #expect(originalAddress != copyAddress)
        }
        let multiByte = String(repeating: "é😀", count: length)
        #expect(UTF8Bytes.equal(UTF8Bytes.unsharedCopy(multiByte), multiByte))
    }
}
