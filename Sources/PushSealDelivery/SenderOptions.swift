public import PushSealCore

/// How a ``PushSender`` paces, retries and times out. The defaults suit APNs and FCM.
public struct SenderOptions: Sendable {
    /// Notifications in progress at once (in flight or waiting for a retry); also the most
    /// streams opened on one connection. `1...1000` (APNs allows 1,000 per connection). Default 256.
    public var maximumInFlight = 256
    /// Requests per notification, retries and the one token refresh included. `1...20`. Default 5.
    public var maximumAttempts = 5
    /// The first retry waits between half of this and all of it; each further retry doubles it
    /// (exponential backoff with jitter). Default 500 ms.
    public var initialBackoffMilliseconds = 500
    /// Longest backoff between two attempts. Default 30 s.
    public var maximumBackoffMilliseconds = 30_000
    /// A `Retry-After` longer than this ends the retries at once (outcome `retry`, with the
    /// service's value in the report). Default 60 s.
    public var maximumRetryAfterSeconds = 60
    /// Whole-request timeout, connection included. Default 30 s.
    public var requestTimeoutMilliseconds = 30_000
    /// Connection (TCP and TLS) timeout. Default 10 s.
    public var connectTimeoutMilliseconds = 10_000
    /// A refused or reset connection is retried with backoff (whatever ``maximumAttempts``)
    /// until the service has answered nothing for this long; then the outcome is
    /// `configuration` and the sender stops sending to that service. Default 30 s.
    public var connectionRetryMilliseconds = 30_000
    /// A PEM file of CA certificates to trust instead of the system's (a test CA, a relay).
    public var caFile: String?
    /// An APNs provider token is reused for this many seconds (APNs rejects tokens older than
    /// an hour). Default 3000 (50 minutes).
    public var apnsTokenLifetime: Int64 = 3000
    /// A rejected APNs token is replaced at most once per this many seconds (APNs answers
    /// `TooManyProviderTokenUpdates` to more frequent changes). Default 1200 (20 minutes).
    public var apnsMinimumRefreshInterval: Int64 = 1200
    /// An FCM access token is replaced this many seconds before it expires (at most half its
    /// lifetime). Default 300.
    public var fcmTokenRefreshMargin: Int64 = 300
    /// FCM requests carry `"validate_only": true`: FCM checks the message, the token's form
    /// and the credentials, and sends nothing; an accepted message is ``DeliveryOutcome/validated``.
    /// APNs has no such request. Default false.
    public var fcmValidateOnly = false
    /// The wall clock for token times (`iat`, expiry).
    public var clock: SecondsClock = systemClock

    /// The defaults.
    public init() {}

    /// Checks the ranges.
    public func validate() throws(DeliveryError) {
        func check(_ value: Int, _ range: ClosedRange<Int>, _ field: String) throws(DeliveryError) {
            guard range.contains(value) else { throw .invalidOption(field: field, detail: "must be \(range.lowerBound) to \(range.upperBound)") }
        }
        try check(maximumInFlight, 1...1000, "maximum in flight")
        try check(maximumAttempts, 1...20, "maximum attempts")
        try check(initialBackoffMilliseconds, 0...600_000, "initial backoff")
        try check(maximumBackoffMilliseconds, 0...3_600_000, "maximum backoff")
        try check(maximumRetryAfterSeconds, 0...86_400, "maximum Retry-After")
        try check(requestTimeoutMilliseconds, 1...3_600_000, "request timeout")
        try check(connectTimeoutMilliseconds, 1...600_000, "connect timeout")
        try check(connectionRetryMilliseconds, 0...3_600_000, "connection retry time")
        guard apnsTokenLifetime >= 1, apnsTokenLifetime <= 3600 else {
            throw .invalidOption(field: "APNs token lifetime", detail: "must be 1 to 3600 seconds")
        }
        guard apnsMinimumRefreshInterval >= 0, fcmTokenRefreshMargin >= 0 else {
            throw .invalidOption(field: "token refresh interval", detail: "must not be negative")
        }
    }
}
