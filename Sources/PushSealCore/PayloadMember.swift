/// The member names PushSeal puts into a push payload (SPEC §9, §16.7), defined here only: the
/// provider writes them, the receiver looks for them, `pushseal inspect` reports on them.
public enum PayloadMember {
    /// `"pushseal"`: the member holding the wire string. Top level in an APNs payload and in an
    /// FCM data map, `message.data.pushseal` in an FCM HTTP v1 message.
    public static let sealed = String(describing: sealedLiteral)
    /// `"pushseal-bundle"`: an in-band key bundle's text, beside the sealed member (SPEC §16.7).
    public static let keyBundle = String(describing: keyBundleLiteral)

    /// ``sealed`` as a static string, for byte comparisons and raw JSON writing.
    package static let sealedLiteral: StaticString = "pushseal"
    /// ``keyBundle`` as a static string, for byte comparisons and raw JSON writing.
    package static let keyBundleLiteral: StaticString = "pushseal-bundle"
}
