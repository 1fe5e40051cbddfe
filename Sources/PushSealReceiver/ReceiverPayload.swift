/// What a receiver is asked to open: a notification payload in one of the forms platforms deliver.
public enum ReceiverPayload: Sendable, Equatable {
    /// Raw JSON bytes: an APNs body (`{"aps":…,"pushseal":"…"}`), a full FCM HTTP v1 message
    /// (`{"message":{"data":{"pushseal":"…"}}}`), or an FCM data map as JSON (`{"pushseal":"…"}`).
    /// Parsed strictly (SPEC 5.2, depth ≤ 16).
    case json([UInt8])
    /// An iOS `userInfo` dictionary (see ``UserInfoValue``).
    case userInfo([String: UserInfoValue])
    /// An FCM data map, as Android's `RemoteMessage.getData()` gives it.
    case fcmData([String: String])

    /// Raw JSON from text.
    public static func json(_ text: String) -> ReceiverPayload {
        .json(Array(text.utf8))
    }
}
