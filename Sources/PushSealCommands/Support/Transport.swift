import PushSealCLIKit

/// What a payload is sealed for (`--transport`, a `send` line's "transport"): an APNs body, an
/// FCM data message for Android, or an FCM message for an iOS device (an apns block carrying the
/// APNs headers and payload).
package enum Transport: String, CaseIterable, ArgumentValue {
    /// An APNs JSON body.
    case apns
    /// An FCM HTTP v1 data-only message.
    case fcm
    /// An FCM HTTP v1 message with an apns block, for an iOS device through FCM.
    case fcmAPNs = "fcm-apns"

    /// Whether the payload goes through FCM (`fcm` or `fcm-apns`).
    package var isFCM: Bool { self != .apns }
}
