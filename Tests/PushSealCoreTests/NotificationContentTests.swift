import Testing
import PushSealCore

@Suite("Content model")
struct NotificationContentTests {
    static let full = NotificationContent(
        conversationID: "conv-1", messageID: "m-1", sentAt: 1_764_400_000, title: "Alice", subtitle: "Team \"A\"",
        body: "Hi\n\u{1F44B}\u{1F3FD} caf\u{e9}\t\u{1}", sender: .init(id: "u-alice", name: "Alice"), thread: "t-1",
        category: "reply", badge: 3, isTruncated: true, extras: ["z": "last", "a": "first", "\u{e9}": "accent"])

    @Test("deterministic compact encoding in the specified order")
    func encoding() throws {
        let text = String(decoding: try Self.full.encoded(), as: UTF8.self)
        #expect(text == #"{"cid":"conv-1","mid":"m-1","ts":1764400000,"title":"Alice","subtitle":"Team \"A\"","body":"Hi\n👋🏽 café\t\u0001","sender":{"id":"u-alice","name":"Alice"},"thread":"t-1","category":"reply","badge":3,"trunc":true,"x":{"a":"first","z":"last","é":"accent"}}"#)
        #expect(try Self.full.encoded() == Self.full.encoded())
        #expect(try Self.full.encoded().count == Self.full.encodedByteCount)
    }

    @Test("encodedByteCount matches for minimal and content-free contents")
    func byteCounts() throws {
        let minimal = NotificationContent(conversationID: "c", messageID: "m", sentAt: 0, body: "")
        #expect(try minimal.encoded().count == minimal.encodedByteCount)
        #expect(String(decoding: try minimal.contentFree.encoded(), as: UTF8.self) == #"{"cid":"c","mid":"m","ts":0}"#)
        #expect(try minimal.contentFree.encoded().count == minimal.contentFree.encodedByteCount)
    }

    @Test("decodes what it encodes")
    func roundTrip() throws {
        #expect(try NotificationContent(decoding: Self.full.encoded()) == Self.full)
        let fetch = Self.full.contentFree
        let decoded = try NotificationContent(decoding: fetch.encoded())
        #expect(decoded.requiresFetch)
    }

    @Test("unknown members are ignored")
    func unknownMembers() throws {
        let content = try NotificationContent(decoding: Array(#"{"cid":"c","mid":"m","ts":1,"body":"b","future":{"n":[1,2.5,null]},"v":2}"#.utf8))
        #expect(content.body == "b")
    }

    @Test("sender validation rejects bad input", arguments: [
        (NotificationContent(conversationID: "", messageID: "m", sentAt: 1, body: ""), "cid"),
        (NotificationContent(conversationID: "c", messageID: "", sentAt: 1, body: ""), "mid"),
        (NotificationContent(conversationID: String(repeating: "c", count: 257), messageID: "m", sentAt: 1, body: ""), "cid"),
        (NotificationContent(conversationID: "c", messageID: "m", sentAt: -1, body: ""), "ts"),
        (NotificationContent(conversationID: "c", messageID: "m", sentAt: 253_402_300_800, body: ""), "ts"),
        (NotificationContent(conversationID: "c", messageID: "m", sentAt: 1, body: "", badge: -1), "badge"),
        (NotificationContent(conversationID: "c", messageID: "m", sentAt: 1, body: "", sender: .init(id: "")), "sender.id"),
        (NotificationContent(conversationID: "c", messageID: "m", sentAt: 1, body: "", thread: ""), "thread"),
        (NotificationContent(conversationID: "c", messageID: "m", sentAt: 1, body: "", category: String(repeating: "k", count: 300)), "category"),
        // C0 control characters are refused in every identifier (SPEC §5.1).
        (NotificationContent(conversationID: "c\u{0}", messageID: "m", sentAt: 1, body: ""), "cid"),
        (NotificationContent(conversationID: "c", messageID: "m\n", sentAt: 1, body: ""), "mid"),
        (NotificationContent(conversationID: "c", messageID: "m", sentAt: 1, body: "", sender: .init(id: "\u{1B}[31m")), "sender.id"),
        (NotificationContent(conversationID: "c", messageID: "m", sentAt: 1, body: "", thread: "t\u{1F}"), "thread"),
        (NotificationContent(conversationID: "c", messageID: "m", sentAt: 1, body: "", category: "\t"), "category"),
    ])
    func senderValidation(content: NotificationContent, field: String) {
        #expect {
            try content.encoded()
        } throws: { error in
            guard case let .outOfRange(reported, _) = error as? ContentError else { return false }
            return reported == field
        }
    }

    @Test("oversized content is refused by the sender")
    func tooLarge() {
        let content = NotificationContent(conversationID: "c", messageID: "m", sentAt: 1, body: String(repeating: "x", count: 4000))
        #expect(throws: ContentError.tooLarge(byteCount: content.encodedByteCount)) { try content.encoded() }
    }

    @Test("receiver schema violations", arguments: [
        (#"[]"#, ContentError.notAnObject),
        (#"{"mid":"m","ts":1,"body":""}"#, .missingField("cid")),
        (#"{"cid":"c","ts":1,"body":""}"#, .missingField("mid")),
        (#"{"cid":"c","mid":"m","body":""}"#, .missingField("ts")),
        (#"{"cid":1,"mid":"m","ts":1,"body":""}"#, .wrongType(field: "cid", expected: "a string")),
        (#"{"cid":"c","mid":["m"],"ts":1,"body":""}"#, .wrongType(field: "mid", expected: "a string")),
        (#"{"cid":"c","mid":"m","ts":"1","body":""}"#, .wrongType(field: "ts", expected: "an integer")),
        (#"{"cid":"c","mid":"m","ts":1.0,"body":""}"#, .wrongType(field: "ts", expected: "an integer without fraction or exponent")),
        (#"{"cid":"c","mid":"m","ts":1e3,"body":""}"#, .wrongType(field: "ts", expected: "an integer without fraction or exponent")),
        (#"{"cid":"c","mid":"m","ts":-5,"body":""}"#, .outOfRange(field: "ts", detail: "must not be negative")),
        (#"{"cid":"c","mid":"m","ts":99999999999999999999999,"body":""}"#, .outOfRange(field: "ts", detail: "must be at most 253402300799 (seconds since 1970, not milliseconds)")),
        (#"{"cid":"c","mid":"m","ts":1,"body":null}"#, .wrongType(field: "body", expected: "a string")),
        (#"{"cid":"c","mid":"m","ts":1,"body":"","title":7}"#, .wrongType(field: "title", expected: "a string")),
        (#"{"cid":"c","mid":"m","ts":1,"body":"","sender":"alice"}"#, .wrongType(field: "sender", expected: "an object")),
        (#"{"cid":"c","mid":"m","ts":1,"body":"","sender":{"name":"A"}}"#, .missingField("sender.id")),
        (#"{"cid":"c","mid":"m","ts":1,"body":"","badge":-1}"#, .outOfRange(field: "badge", detail: "must not be negative")),
        (#"{"cid":"c","mid":"m","ts":1,"body":"","badge":2147483648}"#, .outOfRange(field: "badge", detail: "must be at most 2147483647")),
        (#"{"cid":"c","mid":"m","ts":1,"body":"","trunc":false}"#, .wrongType(field: "trunc", expected: "true when present")),
        (#"{"cid":"c","mid":"m","ts":1,"body":"","x":{"a":1}}"#, .wrongType(field: "x.a", expected: "a string")),
        (#"{"cid":"c","mid":"m","ts":1,"body":"","x":[]}"#, .wrongType(field: "x", expected: "an object of strings")),
        (#"{"cid":"","mid":"m","ts":1,"body":""}"#, .outOfRange(field: "cid", detail: "must be 1 to 256 UTF-8 bytes, is 0")),
    ])
    func receiverSchema(text: String, expected: ContentError) {
        #expect(throws: expected) { try NotificationContent(decoding: Array(text.utf8)) }
    }

    @Test("invalid JSON and oversize are reported as such")
    func invalidJSON() {
        #expect(throws: ContentError.self) { try NotificationContent(decoding: Array(#"{"cid":"c","cid":"d","mid":"m","ts":1,"body":""}"#.utf8)) }
        let big = Array(#"{"cid":"c","mid":"m","ts":1,"body":""#.utf8) + [UInt8](repeating: 0x61, count: 4000) + Array(#""}"#.utf8)
        #expect(throws: ContentError.tooLarge(byteCount: big.count)) { try NotificationContent(decoding: big) }
    }
}
