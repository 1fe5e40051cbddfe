@_spi(Vectors) import PushSealProvider
import PushSealCore

/// How the generator wraps a wire string into the transport payloads recorded in the vectors.
package struct VectorTransports: Sendable {
    /// The exact APNs JSON body for a wire string sealed under `key`.
    package var apnsPayload: @Sendable (_ wire: String, _ key: ConversationKey) -> String
    /// The exact FCM HTTP v1 message for a wire string.
    package var fcmMessage: @Sendable (_ wire: String, _ key: ConversationKey) -> String

    /// Builds transports from the two payload functions.
    package init(
        apnsPayload: @escaping @Sendable (_ wire: String, _ key: ConversationKey) -> String,
        fcmMessage: @escaping @Sendable (_ wire: String, _ key: ConversationKey) -> String
    ) {
        self.apnsPayload = apnsPayload
        self.fcmMessage = fcmMessage
    }

    /// The APNs options of every vector payload: a plain placeholder, the default sound and the
    /// opaque thread id.
    package static let apnsOptions = APNsOptions(
        placeholder: .text(title: "New message", body: "Open the app to read it"), sound: "default")
    /// The FCM options of every vector payload.
    package static let fcmOptions = FCMOptions(token: "test-device-token")

    /// The provider's own framing (PushSealProvider), so valid cases are byte for byte what
    /// `NotificationSealer` emits for the same content, key and salt.
    package static let standard = VectorTransports(
        apnsPayload: { wire, key in
            String(decoding: try! NotificationSealer.apnsBody(wrapping: wire, key: key, options: apnsOptions), as: UTF8.self)
        },
        fcmMessage: { wire, _ in
            String(decoding: try! NotificationSealer.fcmBody(wrapping: wire, options: fcmOptions), as: UTF8.self)
        })
}
