import Testing
import PushSealJSON
@_spi(Vectors) import PushSealCore
@_spi(Vectors) import PushSealProvider

@Suite("JSON-lines contract helpers and vector framing")
struct BatchLineAndFramingTests {
    let key = testKey(21)

    func parse(_ text: String) throws(ProviderError) -> SealRequestLine {
        try SealRequestLine(parsing: Array(text.utf8))
    }

    @Test("A plain content line")
    func plainLine() throws {
        let line = try parse(#"{"cid":"c","mid":"m","ts":5,"body":"hi","unknown":[1,2]}"# + "\r")
        #expect(line.content == NotificationContent(conversationID: "c", messageID: "m", sentAt: 5, body: "hi"))
        #expect(line.key == nil && line.fcmToken == nil && line.collapseID == nil)
    }

    @Test("Content over 4000 bytes is accepted as input (the provider truncates it)")
    func longLine() throws {
        let body = String(repeating: "a", count: 10_000)
        let line = try parse(#"{"cid":"c","mid":"m","ts":5,"body":""# + body + #""}"#)
        #expect(line.content.body == body)
    }

    @Test("A wrapper line with key, token and collapse id")
    func wrapperLine() throws {
        let keyText = key.withUnsafeBytes { Base64URL.encode(Array($0)) }
        let line = try parse(#"{"content":{"cid":"c","mid":"m","ts":5,"body":"hi"},"key":""# + keyText + #"","fcm_token":"tok","collapse_id":"x1"}"#)
        #expect(line.content.conversationID == "c")
        #expect(line.key == key)
        #expect(line.fcmToken == "tok")
        #expect(line.collapseID == "x1")
    }

    @Test("Malformed lines give typed errors", arguments: [
        ("", "invalid_content"),
        ("not json", "invalid_content"),
        ("[1]", "invalid_content"),
        (#"{"cid":"","mid":"m","ts":5,"body":"x"}"#, "invalid_content"),
        (#"{"cid":"c","mid":"m","ts":-5,"body":"x"}"#, "invalid_content"),
        (#"{"cid":"c","mid":"m","ts":5,"body":"x","cid":"d"}"#, "invalid_content"),
        (#"{"content":"x"}"#, "invalid_option"),
        (#"{"content":{"cid":"c","mid":"m","ts":5,"body":"x"},"key":"AAAA"}"#, "invalid_option"),
        (#"{"content":{"cid":"c","mid":"m","ts":5,"body":"x"},"fcm_token":5}"#, "invalid_option"),
        (#"{"content":{"cid":"c","mid":"m","ts":5,"body":"x"},"extra":1}"#, "invalid_option"),
        (#"{"content":{"mid":"m","ts":5,"body":"x"}}"#, "invalid_content"),
    ])
    func malformed(text: String, code: String) {
        do {
            _ = try parse(text)
            Issue.record("parsed")
        } catch {
            #expect(error.code == code)
        }
    }

    @Test("Error objects are one JSON line with line, code and message")
    func errorLine() throws {
        let error = ProviderError.invalidFCMToken("empty")
        let text = String(decoding: error.jsonLine(line: 12), as: UTF8.self)
        #expect(text == #"{"error":{"line":12,"code":"invalid_fcm_token","message":"invalid FCM registration token: empty"}}"#)
        let quoted = ProviderError.invalidContent(.missingField("bo\"dy")).jsonLine(line: nil)
        #expect(!quoted.contains(UInt8(ascii: "\n")))
        let parsed = try JSONParser.parse(quoted)
        #expect(parsed.objectValue?["error"]?.objectValue?["code"] == .string("invalid_content"))
        #expect(parsed.objectValue?["error"]?.objectValue?["line"] == nil)
    }

    @Test("Payload lines never contain a raw newline (JSON-lines safe)")
    func noNewlines() throws {
        let content = NotificationContent(conversationID: "c", messageID: "m", sentAt: 5, title: "a\nb", body: "line1\nline2\r\n\u{2028}")
        let sealer = try NotificationSealer()
        let apns = try sealer.seal(content, with: key, options: APNsOptions(placeholder: .text(title: "x\ny", body: "p\nq")))
        let fcm = try sealer.seal(content, with: key, options: FCMOptions(token: "t"))
        #expect(!apns.body.contains(0x0A) && !fcm.body.contains(0x0A))
    }

    @Test("Vector framing wraps any wire string with exactly the sealing layout")
    func framing() throws {
        let content = NotificationContent(conversationID: "c", messageID: "m", sentAt: 5, body: "x")
        let salt = [UInt8](repeating: 3, count: 24)
        let sealer = try NotificationSealer()
        let options = APNsOptions(sound: "default")
        let request = try sealer.seal(content, with: key, options: options, salt: salt)
        let wire = Envelope.seal(content: try content.encoded(), with: key, paddedLength: 256, salt: salt).wire
        #expect(try NotificationSealer.apnsBody(wrapping: wire, key: key, options: options) == request.body)
        let message = try sealer.seal(content, with: key, options: FCMOptions(token: "t"), salt: salt)
        #expect(try NotificationSealer.fcmBody(wrapping: wire, options: FCMOptions(token: "t")) == message.body)
        #expect(try NotificationSealer.apnsBody(wrapping: "!!", key: key, options: options).count > 0)
        #expect(throws: ProviderError.missingPlaceholder) {
            try NotificationSealer.apnsBody(wrapping: wire, key: key, options: APNsOptions(placeholder: .text(title: nil, body: "")))
        }
    }

    @Test("Ids of 256 quotes each with a long placeholder cannot fit APNs even content-free; control characters in ids are invalid content")
    func pathologicalIDs() throws {
        let sealer = try NotificationSealer()
        let quotes = String(repeating: "\"", count: 256)
        let placeholder = APNsOptions(placeholder: .text(title: nil, body: String(repeating: "p", count: 2_700)))
        do {
            _ = try sealer.seal(NotificationContent(conversationID: quotes, messageID: quotes, sentAt: 5, body: "x"), with: key, options: placeholder)
            Issue.record("sealed")
        } catch {
            guard case .doesNotFit = error else { Issue.record("unexpected \(error)"); return }
        }
        for ids in ["\u{1}", "a\u{0}b", String(repeating: "\u{1F}", count: 256)] {
            do {
                _ = try sealer.seal(NotificationContent(conversationID: ids, messageID: "m", sentAt: 5, body: "x"), with: key, options: APNsOptions())
                Issue.record("sealed")
            } catch {
                guard case .invalidContent(.outOfRange(field: "cid", _)) = error else { Issue.record("unexpected \(error)"); return }
            }
        }
    }
}
