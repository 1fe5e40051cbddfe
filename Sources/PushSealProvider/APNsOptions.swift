public import PushSealCore

/// How an APNs notification is presented before (or instead of) decryption, and the request
/// headers. Everything here is visible to Apple: it must never contain message content.
public struct APNsOptions: Sendable, Equatable {
    /// Largest `apns-collapse-id`, in bytes (an APNs limit).
    public static let maximumCollapseIDByteCount = 64
    /// Largest `apns-topic`, in bytes (a sanity bound; bundle ids are far shorter).
    public static let maximumTopicByteCount = 255
    /// Default placeholder: body `New message`, no title.
    public static let defaultPlaceholder = Placeholder.text(title: nil, body: "New message")

    /// The alert shown when the extension cannot decrypt (and the starting point it replaces).
    public enum Placeholder: Sendable, Equatable {
        /// Plain text: `{"title":…,"body":…}` (title omitted when nil). `body` must not be empty.
        case text(title: String?, body: String)
        /// On-device localization: `title-loc-key`/`title-loc-args` (optional) and
        /// `loc-key`/`loc-args`. Argument arrays are omitted when empty. `bodyKey` must not be empty.
        case localized(titleKey: String?, titleArguments: [String], bodyKey: String, bodyArguments: [String])
    }

    /// The outer `aps.thread-id` (visible to Apple; the receiver uses the content's `thread`).
    public enum ThreadID: Sendable, Equatable {
        /// base64url(HKDF-Expand(K, "pushseal v1 thread id", 16)): groups one conversation
        /// epoch on the lock screen without revealing the conversation id. The default.
        case opaque
        /// No `thread-id` member.
        case omitted
        /// This exact string. Only by explicit choice: it is visible to Apple; never pass a
        /// conversation id here.
        case plain(String)
    }

    /// `aps.interruption-level`.
    public enum InterruptionLevel: String, Sendable, Equatable, CaseIterable {
        /// Added silently to the list.
        case passive
        /// The system default.
        case active
        /// Breaks through Focus (needs the Time Sensitive capability).
        case timeSensitive = "time-sensitive"
        /// Plays sound even when muted (needs Apple's critical-alerts entitlement).
        case critical
    }

    /// `apns-priority`.
    public enum Priority: Int, Sendable, Equatable {
        /// 10: deliver immediately (the default; required for alerts that must show now).
        case immediate = 10
        /// 5: deliver with power considerations.
        case conservePower = 5
    }

    /// `apns-expiration`: until when APNs stores an undeliverable notification.
    public enum Expiration: Sendable, Equatable {
        /// This UNIX time (seconds since 1970).
        case at(Int64)
        /// The sealer's clock plus this many seconds.
        case after(seconds: Int64)
        /// `0`: try once, never store.
        case deliverOnce
    }

    /// The alert placeholder.
    public var placeholder: Placeholder
    /// `apns-topic` (the app's bundle id). Needed for ``APNsRequest/headers()``, not for the body.
    public var topic: String?
    /// `apns-priority`.
    public var priority: Priority
    /// `apns-expiration`.
    public var expiration: Expiration
    /// `apns-collapse-id`: at most 64 bytes of visible ASCII. It is visible to Apple: use an
    /// opaque value (random, or an HMAC of your own id), never a raw conversation or message id.
    public var collapseID: String?
    /// `aps.sound`, e.g. `default`.
    public var sound: String?
    /// `aps.category` (an action category; visible to Apple).
    public var category: String?
    /// `aps.interruption-level`.
    public var interruptionLevel: InterruptionLevel?
    /// `aps.relevance-score`, `0...1`; written with at most three decimals.
    public var relevanceScore: Double?
    /// `aps.thread-id`.
    public var threadID: ThreadID
    /// A key bundle to carry in band (SPEC §16.7): the bundle of the key the notification is
    /// sealed under, for the device it is sent to, as the top-level `"pushseal-bundle"` member.
    /// Its bytes count against the limit first; the content is truncated to make room for it.
    public var keyBundle: KeyBundle?

    /// Options with the defaults: placeholder `New message`, priority 10, expiration 30 days
    /// (the longest APNs stores), opaque thread id, no sound, category, level or score.
    public init(
        placeholder: Placeholder = APNsOptions.defaultPlaceholder, topic: String? = nil, priority: Priority = .immediate,
        expiration: Expiration = .after(seconds: 30 * 86_400), collapseID: String? = nil, sound: String? = nil,
        category: String? = nil, interruptionLevel: InterruptionLevel? = nil, relevanceScore: Double? = nil,
        threadID: ThreadID = .opaque
    ) {
        self.placeholder = placeholder
        self.topic = topic
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.sound = sound
        self.category = category
        self.interruptionLevel = interruptionLevel
        self.relevanceScore = relevanceScore
        self.threadID = threadID
    }

    /// Checks every option; ``NotificationSealer`` calls this before sealing.
    public func validate() throws(ProviderError) {
        switch placeholder {
        case let .text(title, body):
            guard !body.isEmpty else { throw .missingPlaceholder }
            if let title, title.isEmpty { throw .invalidPlaceholder("empty title (use nil for no title)") }
        case let .localized(titleKey, titleArguments, bodyKey, _):
            guard !bodyKey.isEmpty else { throw .missingPlaceholder }
            if let titleKey, titleKey.isEmpty { throw .invalidPlaceholder("empty title-loc-key (use nil for no title)") }
            if titleKey == nil, !titleArguments.isEmpty {
                throw .invalidPlaceholder("title-loc-args given without a title-loc-key")
            }
        }
        if let topic {
            let count = topic.utf8.count
            guard count >= 1, count <= Self.maximumTopicByteCount else {
                throw .invalidTopic("must be 1 to \(Self.maximumTopicByteCount) bytes, is \(count)")
            }
            guard Self.isVisibleASCII(topic) else { throw .invalidTopic("only visible ASCII is allowed") }
        }
        switch expiration {
        case let .at(time) where time < 0: throw .invalidOption(field: "apns-expiration", detail: "must not be negative")
        case let .after(seconds) where seconds < 0 || seconds > 10 * 365 * 86_400:
            throw .invalidOption(field: "apns-expiration", detail: "relative expiration must be 0 to 315360000 seconds")
        default: break
        }
        if let collapseID {
            let count = collapseID.utf8.count
            guard count <= Self.maximumCollapseIDByteCount else { throw .collapseIDTooLong(byteCount: count) }
            guard count >= 1 else { throw .invalidCollapseID("empty (use nil for none)") }
            guard Self.isVisibleASCII(collapseID) else {
                throw .invalidCollapseID("only visible ASCII (0x21–0x7E) is allowed")
            }
        }
        if let sound, sound.isEmpty { throw .invalidOption(field: "sound", detail: "empty (use nil for none)") }
        if let category, category.isEmpty { throw .invalidOption(field: "category", detail: "empty (use nil for none)") }
        if let relevanceScore, !(relevanceScore >= 0 && relevanceScore <= 1) {
            throw .invalidOption(field: "relevance-score", detail: "must be a number from 0 to 1")
        }
        if case let .plain(threadID) = threadID, threadID.isEmpty {
            throw .invalidOption(field: "thread-id", detail: "empty (use .omitted for none)")
        }
    }

    /// `apns-expiration` as UNIX time for a notification sealed now.
    func expirationTime(clock: SecondsClock) -> Int64 {
        switch expiration {
        case let .at(time): time
        case let .after(seconds): clock() + seconds
        case .deliverOnce: 0
        }
    }

    @inline(__always)
    static func isVisibleASCII(_ byte: UInt8) -> Bool { byte >= 0x21 && byte <= 0x7E }

    /// Every UTF-8 byte of `text` is visible ASCII (0x21–0x7E); scans the contiguous bytes
    /// rather than iterating the UTF-8 view.
    static func isVisibleASCII(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in bytes.allSatisfy { isVisibleASCII($0) } }
    }

    /// The relevance score as written: round(score × 1000) (half away from zero) thousandths,
    /// as `0`, `1`, or `0.` followed by up to three digits without trailing zeros.
    static func relevanceScoreText(_ score: Double) -> String {
        let thousandths = Int((score * 1000).rounded(.toNearestOrAwayFromZero))
        if thousandths <= 0 { return "0" }
        if thousandths >= 1000 { return "1" }
        var digits = String(thousandths)
        while digits.utf8.count < 3 { digits = "0" + digits }
        while digits.hasSuffix("0") { digits.removeLast() }
        return "0." + digits
    }
}
