@_spi(Vectors) import PushSealCore

/// One test vector: the receiver's situation, the exact bytes, the intermediate values and the
/// expected result. Field meanings are documented in Vectors/README.md.
public struct VectorCase: Sendable {
    /// Stable case id (assigned in order of definition).
    public var tcId = 0
    /// What the case shows.
    public var comment: String
    /// Flags naming the property exercised (see ``VectorSuite/flagNotes``).
    public var flags: [String]
    /// The conversation the receiver's key is stored for.
    public var conversation: String
    /// The receiver's key for `conversation`.
    public var receiverKey: ConversationKey
    /// The receiver key's retire-by time (nil: the key is current).
    public var keyRetireBy: Int64?
    /// The id under which the receiver's key source hands out `receiverKey`, when it is not the
    /// id derived from it (a key source that stored the kid it was handed; nil: derived).
    public var keySourceKeyID: [UInt8]?
    /// Whether the receiver's key store can be read ("available") or reports locked.
    public var keyStoreLocked = false
    /// Whether (cid, mid) is already in the receiver's duplicate log.
    public var previouslySeen = false
    /// With `previouslySeen`: whether the log recorded the pair with a different envelope than
    /// this case's (a conflict) rather than with this very envelope (a replay).
    public var previousEnvelopeDiffers = false
    /// The receiver's clock and freshness settings.
    public var now: Int64 = VectorSuite.now
    public var maxAge: Int64 = VectorSuite.defaultMaxAge
    public var maxFutureSkew: Int64 = VectorSuite.defaultMaxFutureSkew
    /// The key the envelope was sealed under (nil when there is no envelope).
    public var sealKey: ConversationKey?
    /// The salt (nil when there is no envelope).
    public var salt: [UInt8]?
    /// The pad block the sender used (nil when the plaintext was crafted directly).
    public var padBlock: Int?
    /// The content bytes before padding (nil when there is none).
    public var content: [UInt8]?
    /// The exact AEAD plaintext P.
    public var plaintext: [UInt8]?
    /// True when `wire` is exactly the v1 sealing of `plaintext` under `sealKey` and `salt`.
    public var resealable = false
    /// The envelope string inside the payload, when there is one.
    public var wire: String?
    /// The exact payload the receiver opens.
    public var payload: String
    /// The exact FCM HTTP v1 message for valid cases.
    public var fcm: String?
    /// The expected reason code; nil for a valid case.
    public var reason: ReasonCode?
    /// Whether the valid result carries the duplicate flag.
    public var duplicate = false
    /// Whether the valid result carries the conflict flag (same (cid, mid), another envelope).
    public var conflict = false

    /// For a valid case: whether the content is content-free (no `body`), so the app must fetch.
    public var requiresFetch: Bool {
        guard reason == nil, let content, let parsed = try? NotificationContent(decoding: content) else { return false }
        return parsed.requiresFetch
    }

    /// For a valid case: whether the content says the provider shortened its body (`trunc`).
    public var truncated: Bool {
        guard reason == nil, let content, let parsed = try? NotificationContent(decoding: content) else { return false }
        return parsed.isTruncated
    }

    /// The message key, derived from `sealKey` and `salt`.
    public var messageKey: [UInt8]? {
        guard let sealKey, let salt else { return nil }
        return Envelope.messageKey(for: sealKey, salt: salt)
    }
}

