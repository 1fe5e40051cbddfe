@_spi(Vectors) import PushSealCore

/// One test vector: the receiver's situation, the exact bytes, the intermediate values and the
/// expected result. Field meanings are documented in Vectors/README.md.
package struct VectorCase: Sendable {
    /// Stable case id (assigned in order of definition).
    package var tcId = 0
    /// What the case shows.
    package var comment: String
    /// Flags naming the property exercised (see ``VectorSuite/flagNotes``).
    package var flags: [String]
    /// The conversation the receiver's key is stored for.
    package var conversation: String
    /// The receiver's key for `conversation`.
    package var receiverKey: ConversationKey
    /// The receiver key's retire-by time (nil: the key is current).
    package var keyRetireBy: Int64?
    /// The id under which the receiver's key source hands out `receiverKey`, when it is not the
    /// id derived from it (a key source that stored the kid it was handed; nil: derived).
    package var keySourceKeyID: [UInt8]?
    /// Whether the receiver's key store can be read ("available") or reports locked.
    package var keyStoreLocked = false
    /// Whether (cid, mid) is already in the receiver's duplicate log.
    package var previouslySeen = false
    /// With `previouslySeen`: whether the log recorded the pair with a different envelope than
    /// this case's (a conflict) rather than with this very envelope (a replay).
    package var previousEnvelopeDiffers = false
    /// The receiver's clock and freshness settings.
    package var now: Int64 = VectorSuite.now
    package var maxAge: Int64 = VectorSuite.defaultMaxAge
    package var maxFutureSkew: Int64 = VectorSuite.defaultMaxFutureSkew
    /// The key the envelope was sealed under (nil when there is no envelope).
    package var sealKey: ConversationKey?
    /// The salt (nil when there is no envelope).
    package var salt: [UInt8]?
    /// The pad block the sender used (nil when the plaintext was crafted directly).
    package var padBlock: Int?
    /// The content bytes before padding (nil when there is none).
    package var content: [UInt8]?
    /// The exact AEAD plaintext P.
    package var plaintext: [UInt8]?
    /// True when `wire` is exactly the v1 sealing of `plaintext` under `sealKey` and `salt`.
    package var resealable = false
    /// The envelope string inside the payload, when there is one.
    package var wire: String?
    /// The exact payload the receiver opens.
    package var payload: String
    /// The exact FCM HTTP v1 message for valid cases.
    package var fcm: String?
    /// The expected reason code; nil for a valid case.
    package var reason: ReasonCode?
    /// Whether the valid result carries the duplicate flag.
    package var duplicate = false
    /// Whether the valid result carries the conflict flag (same (cid, mid), another envelope).
    package var conflict = false

    /// For a valid case: whether the content is content-free (no `body`), so the app must fetch.
    package var requiresFetch: Bool {
        guard reason == nil, let content, let parsed = try? NotificationContent(decoding: content) else { return false }
        return parsed.requiresFetch
    }

    /// For a valid case: whether the content says the provider shortened its body (`trunc`).
    package var truncated: Bool {
        guard reason == nil, let content, let parsed = try? NotificationContent(decoding: content) else { return false }
        return parsed.isTruncated
    }

    /// The message key, derived from `sealKey` and `salt`.
    package var messageKey: [UInt8]? {
        guard let sealKey, let salt else { return nil }
        return Envelope.messageKey(for: sealKey, salt: salt)
    }
}

