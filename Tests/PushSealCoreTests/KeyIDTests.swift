import PushSealCore
import PushSealTestSupport
import Testing

/// KeyID keeps its 16 bytes inline; every way in and out gives the same bytes.
@Suite("KeyID") struct KeyIDTests {
    let sixteen: [UInt8] = (0..<16).map { UInt8($0 * 17 & 0xFF) }

    @Test func bytesRoundTripThroughEveryInitializer() throws {
        var generator = TestSeed.generator()
        for _ in 0..<500 {
            let raw = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let fromArray = try #require(KeyID(bytes: raw))
            let fromLazy = try #require(KeyID(bytes: raw.lazy.map { $0 }))   // not contiguous
            let fromSlice = try #require(KeyID(bytes: ([0xFF] + raw + [0xEE])[1..<17]))
            let fromBuffer = try #require(raw.withUnsafeBytes { KeyID(exactly: $0) })
            let fromText = try #require(KeyID(base64URL: Base64URL.encode(raw)))
            for id in [fromArray, fromLazy, fromSlice, fromBuffer, fromText] {
                #expect(id == fromArray && id.hashValue == fromArray.hashValue)
                #expect(id.bytes == raw)
                #expect(id.withUnsafeBytes { Array($0) } == raw)
                #expect(id.hex == Hex.encode(raw) && id.base64URL == Base64URL.encode(raw) && id.description == id.base64URL)
            }
            var other = raw
            other[Int.random(in: 0..<16, using: &generator)] ^= 1 << UInt8.random(in: 0..<8, using: &generator)
            #expect(KeyID(bytes: other) != fromArray)
        }
        for count in [0, 1, 15, 17, 32] {
            let raw = [UInt8](repeating: 1, count: count)
            #expect(KeyID(bytes: raw) == nil)
            #expect(KeyID(bytes: raw.lazy.map { $0 }) == nil)
            #expect(raw.withUnsafeBytes { KeyID(exactly: $0) } == nil)
        }
    }

    @Test("Text forms: base64url (22 characters) and hex, and back")
    func textForms() {
        let id = KeyID(bytes: sixteen)!
        #expect(id.base64URL == Base64URL.encode(sixteen))
        #expect(id.base64URL.utf8.count == 22)
        #expect(id.hex == Hex.encode(sixteen))
        #expect(id.description == id.base64URL)
        #expect(KeyID(base64URL: id.base64URL) == id)
        #expect(KeyID(base64URL: Base64URL.encode(sixteen + [0])) == nil)
        #expect(KeyID(base64URL: "not base64url!") == nil)
        id.withUnsafeBytes { #expect(Array($0) == sixteen) }
    }
}
