import PushSealCore
import Testing

@Suite("KeyID")
struct KeyIDTests {
    let sixteen: [UInt8] = (0..<16).map { UInt8($0 * 17 & 0xFF) }

    @Test("Exactly 16 bytes round-trip; any other length is rejected")
    func lengths() {
        #expect(KeyID(bytes: sixteen)?.bytes == sixteen)
        for count in [0, 1, 15, 17, 32] {
            #expect(KeyID(bytes: [UInt8](repeating: 7, count: count)) == nil)
        }
    }

    @Test("Sequences without contiguous storage and array slices give the same id")
    func sequenceKinds() {
        let fromArray = KeyID(bytes: sixteen)
        #expect(KeyID(bytes: sixteen.lazy.map { $0 }) == fromArray)
        #expect(KeyID(bytes: ([0xFF] + sixteen + [0xEE])[1..<17]) == fromArray)
        #expect(KeyID(bytes: sixteen.lazy.map { $0 }.prefix(15)) == nil)
        #expect(KeyID(bytes: (sixteen + [1]).lazy.map { $0 }) == nil)
    }

    @Test("Equality and hashing follow every byte")
    func equalityAndHashing() {
        let base = KeyID(bytes: sixteen)!
        var seen: Set<KeyID> = [base]
        for index in 0..<16 {
            var changed = sixteen
            changed[index] ^= 0x01
            let other = KeyID(bytes: changed)!
            #expect(other != base)
            #expect(seen.insert(other).inserted)
        }
        #expect(!seen.insert(KeyID(bytes: sixteen)!).inserted)
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
