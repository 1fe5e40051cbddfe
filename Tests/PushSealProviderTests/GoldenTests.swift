import Testing
import PushSealCore
@_spi(Vectors) import PushSealProvider

@Suite("Golden payloads (the Docs/PROVIDER.md example)")
struct GoldenTests {
    static let key = try! ConversationKey(rawBytes: (0..<32).map { UInt8($0) })
    static let salt: [UInt8] = (0..<24).map { UInt8(0xA0 + $0) }
    static let content = NotificationContent(conversationID: "c1", messageID: "m1", sentAt: 1_700_000_000, title: "Ana", body: "Hi 👋")

    /// Checked independently with Python's `hmac` and `cryptography` ChaCha20Poly1305.
    static let wire = "AYC9z2cjRzehng6Y5g7IZBCgoaKjpKWmp6ipqqusra6vsLGys7S1trfmvrNs0J2ALm-T569G7vpbxzRVNlrEDHThVjO9kOGkMhzcIgWnVE1Nsq2I1RHiAOUvmynJcufmbAQptSqTDG3UcSObv64UoV2X4u7j7FJ1oIUzz6jW0JOSyQO6_6IL3vqABoMlbI3qLMUfCYToNQj3Qji1Qj-l_cND8JEZj8a0IOaVT6Q2E1vVGCn89Gf9_H0ijPtxLVODKXaG7YdPggjxSu7vgUYC2GRyOJPy2uZfZs65ffURrKN5j_SWcvQelMDhAJrlJjLMdBfEa6kvakmrde3X20I1jPvs35Qrux0QyHsJ-m8pG6g-jvPi0ERTKKborW2NmxQsyLIflCa3hqN02fr8v2gp3jQirq7t4loFMA"

    @Test("APNs and FCM bytes for a fixed key, salt and content")
    func golden() throws {
        let sealer = try NotificationSealer()
        let apns = try sealer.seal(Self.content, with: Self.key, options: APNsOptions(), salt: Self.salt)
        #expect(apns.bodyText == "{\"aps\":{\"alert\":{\"body\":\"New message\"},\"mutable-content\":1,\"thread-id\":\"rRsaI0vVOKhRE6qUaoBjUA\"},\"pushseal\":\"\(Self.wire)\"}")
        let fcm = try sealer.seal(Self.content, with: Self.key, options: FCMOptions(token: "fcm-registration-token"), salt: Self.salt)
        #expect(fcm.bodyText == "{\"message\":{\"token\":\"fcm-registration-token\",\"data\":{\"pushseal\":\"\(Self.wire)\"},\"android\":{\"priority\":\"high\",\"ttl\":\"2419200s\"}}}")
        #expect(apns.body.count == 529)
        #expect(fcm.sizes.limitedByteCount == 8 + 418)
    }
}
