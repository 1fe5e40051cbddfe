public import PushSealCore

/// Why the provider refused to produce a payload. Every failure of sealing is one of these:
/// the provider never returns a payload over the transport limit and never drops a notification
/// without saying so.
public enum ProviderError: Error, Sendable, Equatable {
    /// The content violates the v1 schema: empty or oversized `cid`/`mid`/`thread`/`category`/
    /// `sender.id`, negative or oversized `badge`, `ts` out of range, or a missing `body` on a
    /// content that is not the content-free form (exactly `cid`, `mid`, `ts`).
    case invalidContent(ContentError)
    /// The APNs placeholder has no text: an empty plain `body`, or an empty `loc-key`.
    case missingPlaceholder
    /// The APNs placeholder is malformed; the string says how (e.g. an empty title).
    case invalidPlaceholder(String)
    /// The FCM registration token is empty, too long, or contains characters a token never has.
    case invalidFCMToken(String)
    /// The pad block is outside `1...4096`.
    case invalidPadBlock(Int)
    /// The `apns-collapse-id` is longer than 64 bytes.
    case collapseIDTooLong(byteCount: Int)
    /// The `apns-collapse-id` is empty or contains bytes outside visible ASCII.
    case invalidCollapseID(String)
    /// APNs request headers were asked for, but no `apns-topic` was configured.
    case missingTopic
    /// The `apns-topic` is empty, too long, or contains bytes outside visible ASCII.
    case invalidTopic(String)
    /// Another option is out of range (`relevance-score`, `ttl`, expiration, `sound`, …).
    case invalidOption(field: String, detail: String)
    /// No conversation key could be obtained for the content's conversation.
    case keyUnavailable(conversation: String, detail: String)
    /// Not even the content-free payload fits the transport limit (the placeholder and outer
    /// fields alone are too large): `byteCount` is the smallest payload size possible.
    case doesNotFit(byteCount: Int, limit: Int)
    /// A deterministic salt (test vectors only) is not 24 bytes.
    case invalidSalt(byteCount: Int)
    /// An internal consistency check failed (computed and written sizes differ). Never expected;
    /// reported instead of sending a payload that might break the limit.
    case internalInconsistency(String)

    /// A stable snake_case code for logs and the CLI's JSON-lines error objects.
    public var code: String {
        switch self {
        case .invalidContent: "invalid_content"
        case .missingPlaceholder: "missing_placeholder"
        case .invalidPlaceholder: "invalid_placeholder"
        case .invalidFCMToken: "invalid_fcm_token"
        case .invalidPadBlock: "invalid_pad_block"
        case .collapseIDTooLong: "collapse_id_too_long"
        case .invalidCollapseID: "invalid_collapse_id"
        case .missingTopic: "missing_topic"
        case .invalidTopic: "invalid_topic"
        case .invalidOption: "invalid_option"
        case .keyUnavailable: "key_unavailable"
        case .doesNotFit: "does_not_fit"
        case .invalidSalt: "invalid_salt"
        case .internalInconsistency: "internal_error"
        }
    }
}

extension ProviderError: CustomStringConvertible {
    /// A one-line human-readable explanation (used in the CLI's error messages and JSON lines).
    public var description: String {
        switch self {
        case let .invalidContent(error): "invalid content: \(error)"
        case .missingPlaceholder: "the placeholder has no text (plain body or loc-key required)"
        case let .invalidPlaceholder(detail): "invalid placeholder: \(detail)"
        case let .invalidFCMToken(detail): "invalid FCM registration token: \(detail)"
        case let .invalidPadBlock(block): "pad block \(block) is outside 1...\(NotificationSealer.maximumPadBlock)"
        case let .collapseIDTooLong(count): "apns-collapse-id is \(count) bytes, more than \(APNsOptions.maximumCollapseIDByteCount)"
        case let .invalidCollapseID(detail): "invalid apns-collapse-id: \(detail)"
        case .missingTopic: "no apns-topic configured (the app's bundle id is required for APNs headers)"
        case let .invalidTopic(detail): "invalid apns-topic: \(detail)"
        case let .invalidOption(field, detail): "invalid option \(field): \(detail)"
        case let .keyUnavailable(conversation, detail): "no key for conversation \"\(conversation)\": \(detail)"
        case let .doesNotFit(count, limit): "even the content-free payload is \(count) bytes, more than the \(limit)-byte limit (shorten the placeholder or outer fields)"
        case let .invalidSalt(count): "salt must be \(Envelope.saltByteCount) bytes, got \(count)"
        case let .internalInconsistency(detail): "internal error: \(detail)"
        }
    }
}
