import Testing
import PushSealJSON
@_spi(Vectors) import PushSealCore
@_spi(Vectors) import PushSealProvider

@Suite("Exact payload bytes and headers")
struct PayloadLayoutTests {
    let key = testKey(42)
    let salt: [UInt8] = Array(0..<24)
    let content = NotificationContent(
        conversationID: "c1", messageID: "m1", sentAt: 1_700_000_000, title: "Ana", body: "Hi 👋")

    /// The wire string the core's own (SPI) sealing gives for this content, salt and padding.
    func expectedWire(_ content: NotificationContent, padded: Int) throws -> String {
        Envelope.seal(content: try content.encoded(), with: key, paddedLength: padded, salt: salt).wire
    }

    @Test("APNs body: member order, placeholder, outer fields, opaque thread id")
    func apnsFullLayout() throws {
        let sealer = try NotificationSealer(clock: { 1_000 })
        let options = APNsOptions(
            placeholder: .text(title: "Chat", body: "New message"), topic: "com.example.chat", priority: .conservePower,
            expiration: .after(seconds: 60), collapseID: "x-1", sound: "default", category: "MSG",
            interruptionLevel: .timeSensitive, relevanceScore: 0.25)
        let request = try sealer.seal(content, with: key, options: options, salt: salt)
        let wire = try expectedWire(content, padded: 256)
        let expected = "{\"aps\":{\"alert\":{\"title\":\"Chat\",\"body\":\"New message\"},\"mutable-content\":1,\"sound\":\"default\","
            + "\"thread-id\":\"\(key.opaqueThreadID)\",\"category\":\"MSG\",\"interruption-level\":\"time-sensitive\","
            + "\"relevance-score\":0.25},\"pushseal\":\"\(wire)\"}"
        #expect(request.bodyText == expected)
        #expect(request.path == .complete)
        #expect(request.keyID == key.id)
        #expect(key.opaqueThreadID.utf8.count == 22)
        #expect(try request.headers() == [
            HTTPHeader(name: "apns-push-type", value: "alert"),
            HTTPHeader(name: "apns-topic", value: "com.example.chat"),
            HTTPHeader(name: "apns-priority", value: "5"),
            HTTPHeader(name: "apns-expiration", value: "1060"),
            HTTPHeader(name: "apns-collapse-id", value: "x-1"),
        ])
        let sizes = request.sizes
        #expect(sizes.contentByteCount == (try content.encoded()).count)
        #expect(sizes.paddedByteCount == 256)
        #expect(sizes.envelopeByteCount == 41 + 256 + 16)
        #expect(sizes.wireLength == 418)
        #expect(sizes.payloadByteCount == request.body.count)
        #expect(sizes.limitedByteCount == request.body.count)
        #expect(sealer.apnsBodyByteCount(ofComplete: content, key: key, options: options) == request.body.count)
    }

    @Test("APNs body: defaults (placeholder only, opaque thread id), default headers")
    func apnsDefaults() throws {
        let sealer = try NotificationSealer(clock: { 5_000 })
        let request = try sealer.seal(content, with: key, options: APNsOptions(topic: "com.example.chat"), salt: salt)
        let wire = try expectedWire(content, padded: 256)
        #expect(request.bodyText == "{\"aps\":{\"alert\":{\"body\":\"New message\"},\"mutable-content\":1,\"thread-id\":\"\(key.opaqueThreadID)\"},\"pushseal\":\"\(wire)\"}")
        #expect(try request.headers() == [
            HTTPHeader(name: "apns-push-type", value: "alert"),
            HTTPHeader(name: "apns-topic", value: "com.example.chat"),
            HTTPHeader(name: "apns-priority", value: "10"),
            HTTPHeader(name: "apns-expiration", value: String(5_000 + 30 * 86_400)),
        ])
        let once = try sealer.seal(content, with: key, options: APNsOptions(topic: "t", expiration: .deliverOnce), salt: salt)
        #expect(once.expiration == 0)
        let fixed = try sealer.seal(content, with: key, options: APNsOptions(topic: "t", expiration: .at(1_234)), salt: salt)
        #expect(fixed.expiration == 1_234)
    }

    @Test("APNs thread-id: omitted, or plain by explicit choice (escaped)")
    func threadIDModes() throws {
        let sealer = try NotificationSealer()
        let omitted = try sealer.seal(content, with: key, options: APNsOptions(threadID: .omitted), salt: salt)
        let wire = try expectedWire(content, padded: 256)
        #expect(omitted.bodyText == "{\"aps\":{\"alert\":{\"body\":\"New message\"},\"mutable-content\":1},\"pushseal\":\"\(wire)\"}")
        let plain = try sealer.seal(content, with: key, options: APNsOptions(threadID: .plain("a\"b")), salt: salt)
        #expect(plain.bodyText == "{\"aps\":{\"alert\":{\"body\":\"New message\"},\"mutable-content\":1,\"thread-id\":\"a\\\"b\"},\"pushseal\":\"\(wire)\"}")
    }

    @Test("APNs localized placeholder: title-loc-key, title-loc-args, loc-key, loc-args; empty arrays omitted")
    func localizedPlaceholder() throws {
        let sealer = try NotificationSealer()
        let wire = try expectedWire(content, padded: 256)
        let full = try sealer.seal(content, with: key, options: APNsOptions(
            placeholder: .localized(titleKey: "T_KEY", titleArguments: ["x"], bodyKey: "B_KEY", bodyArguments: ["1", "2"]),
            threadID: .omitted), salt: salt)
        #expect(full.bodyText == "{\"aps\":{\"alert\":{\"title-loc-key\":\"T_KEY\",\"title-loc-args\":[\"x\"],\"loc-key\":\"B_KEY\",\"loc-args\":[\"1\",\"2\"]},\"mutable-content\":1},\"pushseal\":\"\(wire)\"}")
        let bare = try sealer.seal(content, with: key, options: APNsOptions(
            placeholder: .localized(titleKey: nil, titleArguments: [], bodyKey: "B_KEY", bodyArguments: []),
            threadID: .omitted), salt: salt)
        #expect(bare.bodyText == "{\"aps\":{\"alert\":{\"loc-key\":\"B_KEY\"},\"mutable-content\":1},\"pushseal\":\"\(wire)\"}")
    }

    @Test("Placeholder strings are escaped exactly like content strings")
    func placeholderEscaping() throws {
        let sealer = try NotificationSealer()
        let title = "A \"quoted\"\n\\ title\u{1}/é"
        let request = try sealer.seal(content, with: key, options: APNsOptions(
            placeholder: .text(title: title, body: "b"), threadID: .omitted), salt: salt)
        #expect(request.bodyText.hasPrefix("{\"aps\":{\"alert\":{\"title\":\"A \\\"quoted\\\"\\n\\\\ title\\u0001/é\",\"body\":\"b\"}"))
        let parsed = try JSONParser.parse(request.body)
        #expect(parsed.objectValue?["aps"]?.objectValue?["alert"]?.objectValue?["title"] == .string(title))
    }

    @Test("relevance-score is written with at most three decimals", arguments: [
        (0.0, "0"), (1.0, "1"), (0.5, "0.5"), (0.25, "0.25"), (0.1234, "0.123"), (0.0005, "0.001"),
        (0.0004, "0"), (0.9996, "1"), (0.07, "0.07"), (0.999, "0.999"),
    ])
    func relevanceScore(score: Double, text: String) throws {
        let sealer = try NotificationSealer()
        let request = try sealer.seal(content, with: key, options: APNsOptions(relevanceScore: score, threadID: .omitted), salt: salt)
        #expect(request.bodyText.contains(",\"relevance-score\":\(text)},\"pushseal\""))
    }

    @Test("FCM message: token, data-only, android priority and ttl")
    func fcmLayout() throws {
        let sealer = try NotificationSealer()
        let wire = try expectedWire(content, padded: 256)
        let message = try sealer.seal(content, with: key, options: FCMOptions(token: "fcm:TOKEN-1_x"), salt: salt)
        #expect(message.bodyText == "{\"message\":{\"token\":\"fcm:TOKEN-1_x\",\"data\":{\"pushseal\":\"\(wire)\"},\"android\":{\"priority\":\"high\",\"ttl\":\"2419200s\"}}}")
        #expect(message.sizes.limitedByteCount == 8 + wire.utf8.count)
        #expect(message.keyID == key.id)
        #expect(sealer.fcmDataByteCount(ofComplete: content, options: FCMOptions(token: "t")) == 8 + wire.utf8.count)
        let normal = try sealer.seal(content, with: key, options: FCMOptions(token: "t", priority: .normal, timeToLive: 0), salt: salt)
        #expect(normal.bodyText == "{\"message\":{\"token\":\"t\",\"data\":{\"pushseal\":\"\(wire)\"},\"android\":{\"priority\":\"normal\",\"ttl\":\"0s\"}}}")
    }

    @Test("Sealed payloads open with the core's receiver path")
    func opensWithCore() throws {
        let sealer = try NotificationSealer()
        let request = try sealer.seal(content, with: key, options: APNsOptions())
        let wire = try #require(try JSONParser.parse(request.body).objectValue?["pushseal"]?.stringValue)
        #expect(try Envelope(wire: wire).openContent(with: key) == content)
        #expect(throws: OpenError.self) { try Envelope(wire: wire).openContent(with: testKey(43)) }
    }
}
