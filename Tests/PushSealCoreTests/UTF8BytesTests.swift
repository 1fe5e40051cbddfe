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
}
