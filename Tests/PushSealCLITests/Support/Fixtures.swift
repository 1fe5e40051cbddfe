@_spi(Vectors) import PushSealCore

/// Fixed keys, salts, contents and payloads for CLI tests.
enum Fixtures {
    /// K = 0x01 0x02 … 0x20.
    static let keyBytes: [UInt8] = Array(1...32)
    static let key = try! ConversationKey(rawBytes: keyBytes)
    static let keyBase64URL = Base64URL.encode(keyBytes)
    /// s = 0xA0 … 0xB7.
    static let salt: [UInt8] = Array(0xA0...0xB7)

    static let content = NotificationContent(
        conversationID: "c1", messageID: "m1", sentAt: 1_700_000_000, title: "Alice", body: "Lunch at noon?")

    /// An envelope of `content` padded to `paddedLength` bytes.
    static func envelope(paddedLength: Int = 128) -> Envelope {
        Envelope.seal(content: try! content.encoded(), with: key, paddedLength: paddedLength, salt: salt)
    }

    /// An APNs payload around `wire`, with optional extra bytes in an outer field.
    static func apnsPayload(wire: String, padding: Int = 0) -> String {
        let extra = padding > 0 ? #","x-pad":""# + String(repeating: "p", count: padding) + #"""# : ""
        return #"{"aps":{"alert":{"title":"New message","body":"New message"},"mutable-content":1}"#
            + extra + #","pushseal":""# + wire + #""}"#
    }

    /// An FCM HTTP v1 message around `wire`.
    static func fcmMessage(wire: String) -> String {
        #"{"message":{"token":"device-token","data":{"pushseal":""# + wire + #"","v":"1"},"android":{"priority":"high"}}}"#
    }

    /// Base64url of raw envelope bytes (for malformed-length and version cases).
    static func wire(_ bytes: [UInt8]) -> String {
        Base64URL.encode(bytes)
    }
}
