/// Which of the three size-policy paths produced a payload.
public enum SealPath: Sendable, Equatable {
    /// The whole content was sealed.
    case complete
    /// `body` was shortened at a grapheme-cluster boundary, `…` appended and `trunc: true` set.
    /// `originalBodyLength` is the original body's length in UTF-8 bytes.
    case truncated(originalBodyLength: Int)
    /// Not even body `…` fitted: only `cid`, `mid` and `ts` were sealed (wake and fetch).
    case contentFree
}

/// The exact sizes of one sealed payload.
public struct SealSizes: Sendable, Equatable {
    /// Encoded content that was sealed, in bytes (after any truncation).
    public let contentByteCount: Int
    /// Padded plaintext |P|.
    public let paddedByteCount: Int
    /// Envelope |E| = 41 + |P| + 16.
    public let envelopeByteCount: Int
    /// Wire string length (base64url of E).
    public let wireLength: Int
    /// The whole payload: APNs JSON body, or FCM v1 message JSON.
    public let payloadByteCount: Int
    /// What the transport limit applies to: the APNs body (= ``payloadByteCount``), or for FCM
    /// the data map's keys plus values (`"pushseal"` 8 bytes + the wire string).
    public let limitedByteCount: Int
    /// The transport limit (4096).
    public let limit: Int
}

/// An HTTP request header.
public struct HTTPHeader: Sendable, Equatable, CustomStringConvertible {
    /// Lowercase header name.
    public let name: String
    /// Header value.
    public let value: String
    /// A header.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
    /// `name: value`.
    public var description: String { "\(name): \(value)" }
}

/// What became of one JSON line of ``NotificationSealer/seal(lines:keyProvider:limits:item:outcomes:)``:
/// the sealed request, or why the line was not sealed. A failed line fails only itself.
public struct SealLineOutcome<Request: Sendable>: Sendable {
    /// The line's number in the stream, from 1.
    public let line: Int
    /// The sealed request (``APNsRequest`` or ``FCMMessage``), or the line's error.
    public var result: Result<Request, ProviderError>

    /// An outcome.
    public init(line: Int, result: Result<Request, ProviderError>) {
        self.line = line
        self.result = result
    }

    /// Whether the line was not sealed.
    public var isFailure: Bool {
        if case .failure = result { return true }
        return false
    }
}
