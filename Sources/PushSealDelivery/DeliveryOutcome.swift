/// What happened to one notification: one vocabulary for the Swift API, `pushseal send` and
/// the docs (Docs/PROVIDER.md §7.2 and §7.4). The raw values are the strings the CLI prints.
/// Only ``tokenDead`` says to delete a token; ``configuration`` says that no answer about a
/// token can be trusted until the sender's configuration is fixed.
public enum DeliveryOutcome: String, Sendable, Equatable, CaseIterable {
    /// Accepted by APNs (`apns-id`) or FCM (the message name).
    case delivered
    /// FCM accepted the message with `validate_only` (``SenderOptions/fcmValidateOnly``):
    /// valid, and not sent to the device.
    case validated
    /// Not delivered for now: 429, 5xx, a stream reset or a timeout, still so after the last
    /// attempt (or `Retry-After` asks for longer than the sender waits). Send it again later.
    case retry
    /// The device token is no longer valid (APNs 410 `Unregistered`, with its
    /// ``DeliveryReport/timestamp``; FCM `UNREGISTERED`): remove it from your database and stop
    /// sending to it.
    case tokenDead = "token_dead"
    /// APNs 400 `BadDeviceToken` or `DeviceTokenNotForTopic`: the token is not valid for this
    /// environment (sandbox or production) and topic. Check both before removing it: a wrong
    /// environment gives this answer for every token.
    case tokenInvalid = "token_invalid"
    /// The service refused this notification (400 and similar) and said why; resending it
    /// unchanged would fail again.
    case rejected
    /// The sender's configuration is wrong for this service: a wrong URL, project or topic
    /// (APNs 404, `MissingTopic`; FCM 404 without `UNREGISTERED`, `SENDER_ID_MISMATCH`),
    /// refused credentials (403/401 after one token refresh, a refused token grant), an
    /// untrusted certificate or a wrong host name, or a connection refused or reset for longer
    /// than ``SenderOptions/connectionRetryMilliseconds``. The sender stops sending to that
    /// service at the first such answer: later notifications for it are reported
    /// `configuration` without a request. Fix the configuration and send them again; no token
    /// is to be removed.
    case configuration
}

/// The push services a ``PushSender`` talks to.
public enum PushService: String, Sendable, Equatable, CaseIterable {
    /// Apple Push Notification service.
    case apns
    /// Firebase Cloud Messaging (HTTP v1), for Android and for iOS devices through FCM.
    case fcm
}

/// The result for one notification handed to a ``PushSender``.
public struct DeliveryReport: Sendable, Equatable {
    /// The caller's ``PushNotification/tag``.
    public let tag: Int
    /// What happened.
    public let outcome: DeliveryOutcome
    /// The HTTP status of the last attempt; nil when it got no response.
    public let status: Int?
    /// The service's reason (`Unregistered`, `UNREGISTERED`, …), or what failed in transport;
    /// for ``DeliveryOutcome/tokenInvalid`` and ``DeliveryOutcome/configuration`` followed by
    /// what to check.
    public let reason: String?
    /// The `apns-id`, or FCM's message name (`projects/…/messages/…`), when delivered.
    public let identifier: String?
    /// How many requests were sent (1 when the first one settled it; 0 when none was).
    public let attempts: Int
    /// The service's `Retry-After`, in seconds, when the last answer carried one.
    public let retryAfter: Int?
    /// For an APNs 410: the answer's `timestamp`, milliseconds since 1970, when APNs learned
    /// that the token is no longer valid. Keep the token if the device registered it again
    /// after this time.
    public let timestamp: Int64?

    /// A report (built by the sender; public for callers' tests).
    public init(
        tag: Int, outcome: DeliveryOutcome, status: Int?, reason: String?, identifier: String?, attempts: Int, retryAfter: Int?,
        timestamp: Int64? = nil
    ) {
        self.tag = tag
        self.outcome = outcome
        self.status = status
        self.reason = reason
        self.identifier = identifier
        self.attempts = attempts
        self.retryAfter = retryAfter
        self.timestamp = timestamp
    }
}
