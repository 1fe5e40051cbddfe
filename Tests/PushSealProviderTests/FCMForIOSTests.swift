import Testing
@_spi(Vectors) import PushSealCore
@_spi(Vectors) import PushSealProvider
import PushSealJSON

@Suite("FCM messages for iOS devices (the apns block)")
struct FCMForIOSTests {
    let key = testKey(7)
    let salt: [UInt8] = Array(0..<24)
    let content = NotificationContent(conversationID: "c1", messageID: "m1", sentAt: 1_700_000_000, title: "Ana", body: "Hi")
    let apns = APNsOptions(topic: "com.example.chat", expiration: .after(seconds: 60), collapseID: "x-1")

    @Test("The message carries the APNs headers and exactly the APNs body the same options give")
    func layout() throws {
        let sealer = try NotificationSealer(clock: { 1_000 })
        let message = try sealer.seal(content, with: key, options: FCMOptions(token: "tok", apns: apns), salt: salt)
        let request = try sealer.seal(content, with: key, options: apns, salt: salt)
        let expected = #"{"message":{"token":"tok","apns":{"headers":{"apns-push-type":"alert","apns-priority":"10","#
            + #""apns-expiration":"1060","apns-topic":"com.example.chat","apns-collapse-id":"x-1"},"payload":"#
            + request.bodyText + "}}}"
        #expect(message.bodyText == expected)
        #expect(message.sizes.limitedByteCount == request.body.count)
        #expect(message.sizes.limit == 4096)
        #expect(message.path == .complete)
    }

    @Test("The size policy applies to the APNs payload: a long body is truncated to fit it, never past 4096")
    func sizePolicy() throws {
        let sealer = try NotificationSealer()
        let long = NotificationContent(
            conversationID: "c1", messageID: "m1", sentAt: 1_700_000_000, body: String(repeating: "a", count: 3_900))
        let message = try sealer.seal(long, with: key, options: FCMOptions(token: "tok", apns: apns))
        guard case .truncated = message.path else {
            Issue.record("expected truncation, got \(message.path)")
            return
        }
        #expect(message.sizes.limitedByteCount <= 4096)
        let object = try #require(try JSONParser.parse(message.body).objectValue?["message"]?.objectValue?["apns"]?.objectValue)
        var writer = JSONWriter()
        writer.append(try #require(object["payload"]))
        #expect(writer.bytes.count == message.sizes.limitedByteCount)
        #expect(sealer.fcmDataByteCount(ofComplete: content, options: FCMOptions(token: "tok", apns: apns)) == nil)
    }

    @Test("The apns options are validated, and the vector framing refuses the iOS form")
    func validation() throws {
        let sealer = try NotificationSealer()
        let bad = FCMOptions(token: "tok", apns: APNsOptions(collapseID: String(repeating: "x", count: 65)))
        #expect(throws: ProviderError.collapseIDTooLong(byteCount: 65)) { try sealer.seal(content, with: key, options: bad) }
        #expect(throws: ProviderError.invalidOption(field: "apns", detail: "the iOS form is made by sealing")) {
            try NotificationSealer.fcmBody(wrapping: "AQ", options: FCMOptions(token: "tok", apns: apns))
        }
    }
}
