/// Why a receiver fell back instead of showing decrypted content: one vocabulary for the code,
/// the CLI, the vectors, the ports and the docs. The raw values are the exact wire strings.
public enum ReasonCode: String, Sendable, CaseIterable, Codable {
    /// The payload carries no PushSeal envelope; pass it through untouched.
    case notSealed = "not_sealed"
    /// The envelope is not strict base64url, or its length is out of range.
    case malformedEnvelope = "malformed_envelope"
    /// The envelope's version byte is not 0x01.
    case unsupportedVersion = "unsupported_version"
    /// No key with the envelope's key id is stored.
    case unknownKey = "unknown_key"
    /// The key store is locked or unavailable.
    case storeLocked = "store_locked"
    /// The AEAD tag did not verify.
    case authenticationFailed = "authentication_failed"
    /// The decrypted content has bad padding, is not valid JSON, or violates the schema.
    case malformedContent = "malformed_content"
    /// The content's `cid` is not the conversation the key is stored for.
    case conversationMismatch = "conversation_mismatch"
    /// The content's `ts` is too old or too far in the future.
    case stale = "stale"
    /// The content's `ts` is later than its key's retire-by time plus the future-skew allowance:
    /// the key was retired (the conversation rotated) before this notification claims to be sent.
    case retiredKey = "retired_key"
}

/// Why opening a notification failed. Each case corresponds to exactly one ``ReasonCode``.
public enum OpenError: Error, Sendable, Equatable {
    /// See ``ReasonCode/notSealed``.
    case notSealed
    /// See ``ReasonCode/malformedEnvelope``; the string says what is wrong.
    case malformedEnvelope(String)
    /// See ``ReasonCode/unsupportedVersion``; carries the version byte found.
    case unsupportedVersion(UInt8)
    /// See ``ReasonCode/unknownKey``; carries the key id looked up.
    case unknownKey(KeyID)
    /// See ``ReasonCode/storeLocked``; the string says why the store could not be read.
    case storeLocked(String)
    /// See ``ReasonCode/authenticationFailed``.
    case authenticationFailed
    /// See ``ReasonCode/malformedContent``.
    case malformedContent(ContentError)
    /// See ``ReasonCode/conversationMismatch``.
    case conversationMismatch
    /// See ``ReasonCode/stale``; the sent time and the receiver's clock, in seconds since 1970.
    case stale(sentAt: Int64, now: Int64)
    /// See ``ReasonCode/retiredKey``; the sent time and the key's retire-by time, in seconds since 1970.
    case retiredKey(sentAt: Int64, retireBy: Int64)

    /// The reason code this error is reported as.
    public var reason: ReasonCode {
        switch self {
        case .notSealed: .notSealed
        case .malformedEnvelope: .malformedEnvelope
        case .unsupportedVersion: .unsupportedVersion
        case .unknownKey: .unknownKey
        case .storeLocked: .storeLocked
        case .authenticationFailed: .authenticationFailed
        case .malformedContent: .malformedContent
        case .conversationMismatch: .conversationMismatch
        case .stale: .stale
        case .retiredKey: .retiredKey
        }
    }
}

extension OpenError: CustomStringConvertible {
    /// A one-line explanation for diagnostics; the machine-readable form is ``reason``.
    public var description: String {
        switch self {
        case .notSealed: "not a PushSeal payload (no \"pushseal\" member)"
        case let .malformedEnvelope(detail): "malformed envelope: \(detail)"
        case let .unsupportedVersion(version): "unsupported envelope version \(version) (this implementation reads version 1)"
        case let .unknownKey(id): "no key with id \(id) in the key store"
        case let .storeLocked(detail): "key store locked or unavailable: \(detail)"
        case .authenticationFailed: "authentication failed: wrong key or tampered envelope"
        case let .malformedContent(error): "malformed content: \(error)"
        case .conversationMismatch: "the content names a different conversation than the key is stored for"
        case let .stale(sentAt, now): "stale: sent at \(sentAt), now \(now)"
        case let .retiredKey(sentAt, retireBy): "retired key: sent at \(sentAt), after the key's retire-by time \(retireBy)"
        }
    }
}
