/// What happened to one notification: one vocabulary for the Swift API, `pushseal send` and
/// the docs (Docs/PROVIDER.md, "Sending"). The raw values are the strings the CLI prints.
public enum DeliveryOutcome: String, Sendable, Equatable, CaseIterable {
    /// Accepted by APNs (`apns-id`) or FCM (the message name).
    case delivered
    /// Not delivered for now: 429, 5xx or a connection failure, still so after the last
    /// attempt (or `Retry-After` asks for longer than the sender waits). Send it again later.
    case retry
    /// The device token is no longer valid (APNs 410, `BadDeviceToken`, `Unregistered`; FCM
    /// `UNREGISTERED`, `NOT_FOUND`): remove it from your database and stop sending to it.
    case tokenDead = "token_dead"
    /// The service refused the request (400 and similar) and said why; resending it unchanged
    /// would fail again.
    case rejected
    /// The service refused the credentials (403, or FCM 401) even after one token refresh.
    case authenticationFailed = "authentication_failed"
}

/// The result for one notification handed to a ``PushSender``.
public struct DeliveryReport: Sendable, Equatable {
    /// The caller's ``PushNotification/tag``.
    public let tag: Int
    /// What happened.
    public let outcome: DeliveryOutcome
    /// The HTTP status of the last attempt; nil when it got no response.
    public let status: Int?
    /// The service's reason (`BadDeviceToken`, `UNREGISTERED`, …), or what failed in transport.
    public let reason: String?
    /// The `apns-id`, or FCM's message name (`projects/…/messages/…`), when delivered.
    public let identifier: String?
    /// How many requests were sent (1 when the first one settled it).
    public let attempts: Int
    /// The service's `Retry-After`, in seconds, when the last answer carried one.
    public let retryAfter: Int?

    /// A report (built by the sender; public for callers' tests).
    public init(tag: Int, outcome: DeliveryOutcome, status: Int?, reason: String?, identifier: String?, attempts: Int, retryAfter: Int?) {
        self.tag = tag
        self.outcome = outcome
        self.status = status
        self.reason = reason
        self.identifier = identifier
        self.attempts = attempts
        self.retryAfter = retryAfter
    }
}
