@testable import PushSealCore
import PushSealTestSupport
import Testing
import PushSealJSON

/// The one-pass content decoder must give exactly the general decoder's result whenever it
/// gives one (and it must give one for the usual shape).
@Suite struct ContentFastPathTests {
    static func general(_ text: String) -> NotificationContent? {
        guard case let .object(object)? = try? JSONParser.parse(Array(text.utf8)) else { return nil }
        return try? NotificationContent(object: object)
    }

    static func fast(_ text: String) -> NotificationContent? {
        Array(text.utf8).withUnsafeBytes { NotificationContent.decodeUsualShape($0) }
    }

    static let members = [
        "\"cid\":\"c1\"", "\"cid\":\"\"", "\"cid\":1", "\"mid\":\"m1\"", "\"mid\":\"m\\u0031\"", "\"ts\":1700000000", "\"ts\":0",
        "\"ts\":-1", "\"ts\":1.0", "\"ts\":1e3", "\"ts\":253402300800", "\"ts\":99999999999999999999", "\"ts\":\"1\"",
        "\"title\":\"T\"", "\"title\":null", "\"subtitle\":\"S\\n\"", "\"body\":\"b\\\"o\\\\dy \\u00e9 \u{1F44B}\"", "\"body\":\"\"",
        "\"body\":3", "\"sender\":{\"id\":\"u\",\"name\":\"N\"}", "\"sender\":{\"id\":\"u\"}", "\"sender\":{\"name\":\"N\"}",
        "\"sender\":{\"id\":\"u\",\"extra\":1}", "\"sender\":{\"id\":\"u\",\"id\":\"v\"}", "\"sender\":\"u\"",
        "\"thread\":\"t\"", "\"thread\":\"\"", "\"category\":\"c\"", "\"badge\":3", "\"badge\":-3", "\"badge\":2147483648",
        "\"trunc\":true", "\"trunc\":false", "\"x\":{\"k\":\"v\",\"a\":\"b\"}", "\"x\":{\"k\":1}", "\"x\":{\"k\":\"v\",\"k\":\"w\"}",
        "\"x\":{\"\\u006b\":\"v\"}", "\"x\":{\"\u{e9}\":\"1\",\"e\u{301}\":\"2\"}", "\"x\":[]", "\"unknown\":[1,{\"a\":null}]",
        "\"b\\u006fdy\":\"escaped name\"",
        "\"ts\":01", "\"ts\":1E3", "\"ts\":0.0", "\"ts\":9223372036854775808", "\"badge\":0", "\"badge\":00", "\"badge\":2147483647",
        "\"badge\":1e0", "\"badge\":7.", "\"ts\":17000000001", "\"\u{e9}t\":1", "\"ti\\u0074le\":\"x\"",
    ]

    @Test func fastPathAgreesWithTheGeneralDecoder() {
        var generator = TestSeed.generator()
        var fastHits = 0
        for _ in 0..<6_000 {
            var chosen = ["\"cid\":\"c1\"", "\"mid\":\"m1\"", "\"ts\":1700000000"].filter { _ in Int.random(in: 0..<8, using: &generator) > 0 }
            for _ in 0..<Int.random(in: 0...5, using: &generator) { chosen.append(Self.members.randomElement(using: &generator)!) }
            chosen.shuffle(using: &generator)
            let separator = Bool.random(using: &generator) ? "," : " , "
            let text = (Bool.random(using: &generator) ? "{" : " {\n") + chosen.joined(separator: separator) + "}"
            let general = Self.general(text)
            if let fast = Self.fast(text) {
                fastHits += 1
                #expect(fast == general, "\(text)")
            }
        }
        #expect(fastHits > 500, "the usual shapes take the fast path")
    }

    @Test func usualContentsTakeTheFastPath() throws {
        let content = NotificationContent(
            conversationID: "c_81f3", messageID: "m_5521", sentAt: 1_700_000_000, title: "Ana", subtitle: "Work",
            body: "Are we still on for 7?\n\"Yes\" \\ é 👋", sender: .init(id: "u_17", name: "Ana"), thread: "t", category: "reply",
            badge: 3, isTruncated: true, extras: ["deep": "app://x", "id": "42"])
        let bytes = try content.encoded()
        let fast = bytes.withUnsafeBytes { NotificationContent.decodeUsualShape($0) }
        #expect(fast == content)
        #expect(try NotificationContent(decoding: bytes) == content)
    }

    @Test func malformedContentsStillGetTheGeneralErrors() {
        // The fast path gives up; the general decoder reports.
        #expect(throws: ContentError.self) { try NotificationContent(decoding: Array("{\"cid\":\"c\",\"mid\":\"m\",\"ts\":-1,\"body\":\"\"}".utf8)) }
        #expect(throws: ContentError.self) { try NotificationContent(decoding: Array("{\"cid\":\"c\",\"cid\":\"c\",\"mid\":\"m\",\"ts\":1}".utf8)) }
        #expect(throws: ContentError.self) { try NotificationContent(decoding: Array("{\"cid\":\"c\",\"mid\":\"m\",\"ts\":1,\"body\":\"x\"} x".utf8)) }
    }
}
