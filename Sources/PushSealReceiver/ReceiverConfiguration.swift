import PushSealCore

/// How a ``Receiver`` judges freshness and what it shows when it cannot show the content.
public struct ReceiverConfiguration: Sendable {
    /// Default ``maximumAge``: 31 days (2678400 s), longer than APNs' 30-day storage.
    public static let defaultMaximumAge: Int64 = 2_678_400
    /// Default ``maximumFutureSkew``: 10 minutes.
    public static let defaultMaximumFutureSkew: Int64 = 600

    /// A content older than this (`now − ts > maximumAge`) is `stale`. Inclusive: exactly
    /// `maximumAge` old is fresh.
    public var maximumAge: Int64
    /// A content this far ahead of the clock (`ts − now > maximumFutureSkew`) is `stale`.
    public var maximumFutureSkew: Int64
    /// The receiver's clock, seconds since 1970.
    public var clock: SecondsClock
    /// When true (the default), a fallback shows the payload's placeholder alert when it has one;
    /// when false, always the app's ``fallbackText``.
    public var prefersPayloadPlaceholder: Bool
    /// The app's fallback text, localized by the app, for a reason code; called with nil when no
    /// reason code applies: the best attempt delivered when the deadline expires before opening
    /// finished, and a decrypted content-free notification whose message the app must fetch.
    /// Must not capture any decrypted content.
    public var fallbackText: @Sendable (ReasonCode?) -> FallbackText
    /// When true (the default), a payload without an envelope (`not_sealed`) is passed through
    /// untouched, as the platform delivered it. When false it is a fallback that shows the app's
    /// ``fallbackText`` for `not_sealed` (never the payload's own alert): the push service can then
    /// no longer choose the displayed text by sending an unsealed payload (Docs/THREAT-MODEL.md).
    /// Set it when the app receives no notifications other than PushSeal's.
    public var passesThroughUnsealed: Bool
    /// When true, a decrypted result carries the exact content bytes
    /// (``ReceivedNotification/contentBytes``), as the vector checks need. Off by default: the
    /// receiver zeroes its decrypted buffer before returning.
    public var retainsContentBytes: Bool

    /// A configuration; every parameter has the documented default.
    public init(
        maximumAge: Int64 = defaultMaximumAge,
        maximumFutureSkew: Int64 = defaultMaximumFutureSkew,
        clock: @escaping SecondsClock = systemClock,
        prefersPayloadPlaceholder: Bool = true,
        retainsContentBytes: Bool = false,
        passesThroughUnsealed: Bool = true,
        fallbackText: @escaping @Sendable (ReasonCode?) -> FallbackText = { _ in .standard }
    ) {
        self.maximumAge = maximumAge
        self.maximumFutureSkew = maximumFutureSkew
        self.clock = clock
        self.prefersPayloadPlaceholder = prefersPayloadPlaceholder
        self.retainsContentBytes = retainsContentBytes
        self.passesThroughUnsealed = passesThroughUnsealed
        self.fallbackText = fallbackText
    }
}
