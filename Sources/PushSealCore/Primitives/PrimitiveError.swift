/// Why a primitive refused its input: one flat enum, as in swift-crypto (package-internal; the
/// public API reports ``WireFormatError``, ``OpenError`` or the store's and provider's errors).
package enum PrimitiveError: Error, Sendable, Equatable {
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
    /// X25519 produced the all-zero shared secret: the peer's public key is a point of small
    /// order, and RFC 9180 §7.1.4 requires refusing it.
    case zeroSharedSecret
}

extension PrimitiveError: CustomStringConvertible {
    /// A one-line explanation, for error messages.
    package var description: String {
        switch self {
        case let .incorrectKeySize(expected, actual): "key must be \(expected) bytes, got \(actual)"
        case let .incorrectNonceSize(expected, actual): "nonce must be \(expected) bytes, got \(actual)"
        case let .incorrectTagSize(expected, actual): "tag must be \(expected) bytes, got \(actual)"
        case let .invalidOutputLength(length): "output length \(length) is not supported"
        case .authenticationFailure: "authentication failed"
        case .zeroSharedSecret: "the X25519 shared secret is all zero (a small-order public key)"
        }
    }
}
