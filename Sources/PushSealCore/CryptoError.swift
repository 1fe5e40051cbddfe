/// Errors from the cryptographic primitives, one flat enum as in swift-crypto.
public enum CryptoError: Error, Sendable, Equatable {
    /// A key does not have the length the primitive requires.
    case incorrectKeySize(expected: Int, actual: Int)
    /// A nonce does not have the length the primitive requires.
    case incorrectNonceSize(expected: Int, actual: Int)
    /// A tag or ciphertext is shorter than the authentication tag.
    case incorrectTagSize(expected: Int, actual: Int)
    /// The requested output length is outside what the primitive can produce.
    case invalidOutputLength(Int)
    /// Tag verification failed: the key, nonce, associated data or ciphertext is wrong.
    case authenticationFailure
}

extension CryptoError: CustomStringConvertible {
    /// A one-line explanation, for error messages.
    public var description: String {
        switch self {
        case let .incorrectKeySize(expected, actual): "key must be \(expected) bytes, got \(actual)"
        case let .incorrectNonceSize(expected, actual): "nonce must be \(expected) bytes, got \(actual)"
        case let .incorrectTagSize(expected, actual): "tag must be \(expected) bytes, got \(actual)"
        case let .invalidOutputLength(length): "output length \(length) is not supported"
        case .authenticationFailure: "authentication failed"
        }
    }
}
