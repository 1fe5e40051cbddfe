public import PushSealCore

/// Why ``PayloadInspection`` finds no envelope that could open, before any key is needed. Each
/// case has the receiver's reason code (``reason``): the same payload given to ``Receiver`` fails
/// with it.
public enum PayloadInspectionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input is empty or only JSON whitespace: `not_sealed`.
    case onlyWhitespace
    /// The input starts like no JSON value and is not UTF-8 text: `not_sealed`.
    case notText
    /// The input is not strict JSON (RFC 8259, nesting at most 16): `not_sealed`; the parser's
    /// explanation, with its byte offset.
    case notJSON(String)
    /// The JSON value is neither an object nor a string: `not_sealed`.
    case notAnObject
    /// An object repeats this member name (anything but the sealed member in its own object):
    /// `not_sealed`, so that two parsers cannot read the payload two ways (SPEC Appendix A.1).
    /// `offset` is the byte offset of the repeat in the input (surrounding whitespace excluded).
    case repeatedMemberName(String, offset: Int)
    /// There is no sealed member where the receiver looks (top level, or `message.data`):
    /// `not_sealed`. `inMessageData` when the input is an FCM message.
    case noSealedMember(inMessageData: Bool)
    /// The sealed member occurs more than once in its object: `malformed_envelope`. `offset` is
    /// the byte offset of its second occurrence in the input (surrounding whitespace excluded).
    case duplicatedSealedMember(offset: Int)
    /// The sealed member is not a string: `malformed_envelope`; the type it is ("a number", …).
    case sealedMemberNotString(String)
    /// The wire string is not a valid envelope: the envelope's own reason
    /// (`malformed_envelope`, `unsupported_version`).
    case envelope(OpenError)

    /// The receiver's reason code for this payload.
    public var reason: ReasonCode {
        switch self {
        case .onlyWhitespace, .notText, .notJSON, .notAnObject, .repeatedMemberName, .noSealedMember: .notSealed
        case .duplicatedSealedMember, .sealedMemberNotString: .malformedEnvelope
        case let .envelope(error): error.reason
        }
    }

    /// What is wrong, for people.
    public var description: String {
        switch self {
        case .onlyWhitespace: "not a PushSeal payload: the input is only whitespace"
        case .notText: "not a PushSeal payload: the input is neither JSON nor text"
        case let .notJSON(why): "not a PushSeal payload: not strict JSON: \(why)"
        case .notAnObject: "not a PushSeal payload: the JSON value is not an object"
        case let .repeatedMemberName(name, offset): "not a PushSeal payload: not strict JSON: duplicate member name \"\(name)\" at byte \(offset)"
        case .noSealedMember(inMessageData: true): "not a PushSeal payload: no message.data.\(PayloadMember.sealed) member"
        case .noSealedMember(inMessageData: false): "not a PushSeal payload: no top-level \"\(PayloadMember.sealed)\" member"
        case let .duplicatedSealedMember(offset): "the \"\(PayloadMember.sealed)\" member appears more than once (at byte \(offset))"
        case .sealedMemberNotString: "the \"\(PayloadMember.sealed)\" member is not a string"
        case let .envelope(error): error.description
        }
    }
}
