import PushSealJSON
/// Why a notification content is rejected: by the sender before sealing, or by the receiver
/// after decrypting (reported there as ``ReasonCode/malformedContent``).
public enum ContentError: Error, Sendable, Equatable {
    /// The padding is malformed: no 0x80 marker, or a non-zero byte after it.
    case invalidPadding
    /// The content is larger than ``NotificationContent/maximumByteCount``.
    case tooLarge(byteCount: Int)
    /// The bytes are not strict JSON (or not UTF-8): what is wrong, at which byte offset.
    case invalidJSON(offset: Int, detail: String)
    /// The JSON value is not an object.
    case notAnObject
    /// A required member is absent.
    case missingField(String)
    /// A member has the wrong JSON type; `expected` says what was required.
    case wrongType(field: String, expected: String)
    /// A member has the right type but a value outside its allowed range.
    case outOfRange(field: String, detail: String)
}

extension ContentError: CustomStringConvertible {
    /// A one-line explanation naming the field and the rule it breaks, for error messages.
    public var description: String {
        switch self {
        case .invalidPadding: "invalid padding"
        case let .tooLarge(count): "content is \(count) bytes, more than the \(NotificationContent.maximumByteCount)-byte limit"
        case let .invalidJSON(offset, detail): "not strict JSON: \(detail) at byte \(offset)"
        case .notAnObject: "content is not a JSON object"
        case let .missingField(field): "required field \"\(field)\" is missing"
        case let .wrongType(field, expected): "field \"\(field)\" must be \(expected)"
        case let .outOfRange(field, detail): "field \"\(field)\" \(detail)"
        }
    }
}

extension ContentError {
    /// The strict JSON parser's error as a content error.
    package static func invalidJSON(_ error: JSONParser.Error) -> ContentError {
        .invalidJSON(offset: error.offset, detail: error.message)
    }
}
