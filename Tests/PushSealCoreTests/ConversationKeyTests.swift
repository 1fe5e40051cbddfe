@_spi(Vectors) import PushSealCore
import Testing

@Suite("ConversationKey private copies")
struct ConversationKeyCopyTests {
    @Test("A private copy is the same key in storage of its own")
    func privateCopy() throws {
        let key = try ConversationKey(rawBytes: (0..<32).map { UInt8(255 - $0) })
        let copy = key.privateCopy()
        #expect(copy == key)
        #expect(copy.id == key.id)
        #expect(copy.opaqueThreadID == key.opaqueThreadID)
        #expect(copy.storageIdentity != key.storageIdentity)
        #expect(key.storageIdentity == key.storageIdentity)
        copy.withUnsafeBytes { a in key.withUnsafeBytes { b in #expect(Array(a) == Array(b)) } }
        // Same derivations: an envelope sealed with the copy opens with the original and back.
        let content = NotificationContent(conversationID: "c1", messageID: "m1", sentAt: 1, body: "hi")
        let bytes = try content.encoded()
        let salt = [UInt8](repeating: 9, count: Envelope.saltByteCount)
        let byCopy = Envelope.seal(content: bytes, with: copy, paddedLength: 64, salt: salt)
        #expect(byCopy == Envelope.seal(content: bytes, with: key, paddedLength: 64, salt: salt))
        #expect(try byCopy.open(with: key) == bytes)
    }
}
