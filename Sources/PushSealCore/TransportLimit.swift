/// What the push services accept, in bytes (SPEC §9.3), defined here only: the provider seals to
/// these limits, `pushseal inspect` measures against them.
public enum TransportLimit {
    /// APNs: the most bytes of a notification's complete JSON body.
    public static let apnsPayload = 4096
    /// FCM: the most bytes of a data message's `data`, counted as its keys plus its values (for
    /// PushSeal's map: ``PayloadMember/sealed`` plus the wire string).
    public static let fcmData = 4096
}
