public import PushSealCore

/// A sealed APNs notification: the exact JSON body bytes and what is needed for the headers.
public struct APNsRequest: Sendable, Equatable {
    /// The exact JSON body (at most 4096 bytes).
    public let body: [UInt8]
    /// The path taken by the size policy.
    public let path: SealPath
    /// Exact sizes.
    public let sizes: SealSizes
    /// The key id of the conversation key that sealed it.
    public let keyID: KeyID
    /// `apns-topic`, when configured.
    public let topic: String?
    /// `apns-priority`.
    public let priority: APNsOptions.Priority
    /// `apns-expiration` as UNIX time (0 = deliver once, never store).
    public let expiration: Int64
    /// `apns-collapse-id`, when configured.
    public let collapseID: String?

    /// The body as text (it is ASCII-safe JSON in UTF-8).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The request headers, in this order: `apns-push-type: alert`, `apns-topic`,
    /// `apns-priority`, `apns-expiration`, then `apns-collapse-id` when set.
    /// Throws ``ProviderError/missingTopic`` when no topic was configured.
    public func headers() throws(ProviderError) -> [HTTPHeader] {
        guard let topic else { throw .missingTopic }
        var headers = [
            HTTPHeader(name: "apns-push-type", value: "alert"),
            HTTPHeader(name: "apns-topic", value: topic),
            HTTPHeader(name: "apns-priority", value: String(priority.rawValue)),
            HTTPHeader(name: "apns-expiration", value: String(expiration)),
        ]
        if let collapseID { headers.append(HTTPHeader(name: "apns-collapse-id", value: collapseID)) }
        return headers
    }
}

/// A sealed FCM HTTP v1 message: the exact request body for `messages:send`.
public struct FCMMessage: Sendable, Equatable {
    /// The exact JSON request body `{"message":{…}}`.
    public let body: [UInt8]
    /// The path taken by the size policy.
    public let path: SealPath
    /// Exact sizes; ``SealSizes/limitedByteCount`` is the data map's keys plus values.
    public let sizes: SealSizes
    /// The key id of the conversation key that sealed it.
    public let keyID: KeyID

    /// The body as text.
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}
