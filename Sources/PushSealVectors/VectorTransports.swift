import PushSealCore

/// How the generator wraps a wire string into the transport payloads recorded in the vectors.
public struct VectorTransports: Sendable {
    /// The exact APNs JSON body for a wire string sealed under `key`.
    public var apnsPayload: @Sendable (_ wire: String, _ key: ConversationKey) -> String
    /// The exact FCM HTTP v1 message for a wire string.
    public var fcmMessage: @Sendable (_ wire: String, _ key: ConversationKey) -> String

    /// Builds transports from the two payload functions.
    public init(
        apnsPayload: @escaping @Sendable (_ wire: String, _ key: ConversationKey) -> String,
        fcmMessage: @escaping @Sendable (_ wire: String, _ key: ConversationKey) -> String
    ) {
        self.apnsPayload = apnsPayload
        self.fcmMessage = fcmMessage
    }

    /// Minimal payloads in the v1 transport shapes.
    public static let standard = VectorTransports(
        apnsPayload: { wire, _ in
            #"{"aps":{"alert":{"title":"New message","body":"Open the app to read it"},"mutable-content":1},"pushseal":"\#(wire)"}"#
        },
        fcmMessage: { wire, _ in
            #"{"message":{"token":"test-device-token","data":{"pushseal":"\#(wire)"},"android":{"priority":"high"}}}"#
        })
}
