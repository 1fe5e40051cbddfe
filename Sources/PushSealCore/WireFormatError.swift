/// Why key material given to the wire format was refused (outside opening an envelope, which
/// reports ``OpenError``).
public enum WireFormatError: Error, Sendable, Equatable {
    /// A conversation key is not exactly ``ConversationKey/byteCount`` bytes.
    case incorrectKeySize(expected: Int, actual: Int)
}

extension WireFormatError: CustomStringConvertible {
    /// A one-line explanation, for error messages.
    public var description: String {
        switch self {
        case let .incorrectKeySize(expected, actual): "key must be \(expected) bytes, got \(actual)"
        }
    }
}
