public import PushSealCore

public import PushSealKeyDirectory
/// The options of one push transport. Their type chooses what ``NotificationSealer`` makes:
/// ``APNsOptions`` seal into an ``APNsRequest`` (APNs), ``FCMOptions`` into an ``FCMMessage``
/// (FCM HTTP v1, Android or iOS). Every `seal` method takes them as its `options` (or in its
/// ``BatchItem``s), so there is one method for each way of sealing — under a key, under a key
/// provider's current key, a batch — and it serves both transports:
///
/// ```swift
/// let request = try sealer.seal(content, with: key, options: APNsOptions(topic: "com.example.chat"))
/// let message = try sealer.seal(content, with: key, options: FCMOptions(token: token))
/// ```
///
/// ``APNsOptions`` and ``FCMOptions`` are the only conformances. The members whose names start
/// with an underscore are the sealer's hooks into each transport, not API: call `seal` instead.
public protocol TransportOptions: Sendable {
    /// What sealing with these options makes: ``APNsRequest`` or ``FCMMessage``.
    associatedtype SealedRequest: Sendable

    /// Throws the first problem with these options (sealing checks them first).
    func validate() throws(ProviderError)

    /// The sealer's hook: seals `content` under `key` (content and options not yet validated).
    /// Call ``NotificationSealer/seal(_:with:options:)`` instead.
    func _seal(_ content: NotificationContent, key: ConversationKey, by sealer: NotificationSealer) throws(ProviderError) -> SealedRequest

    /// The sealer's hook for batches, specialized for each transport. Call
    /// ``NotificationSealer/seal(batch:keyProvider:deliver:)`` instead.
    static func _seal(
        batch items: [BatchItem<Self>], by sealer: NotificationSealer, keyProvider: (any CurrentKeyProvider)?,
        deliver: @Sendable (_ index: Int, _ result: consuming Result<SealedRequest, ProviderError>) -> Void)
}

extension APNsOptions: TransportOptions {
    /// Seals into an ``APNsRequest`` (the sealer's hook).
    public func _seal(_ content: NotificationContent, key: ConversationKey, by sealer: NotificationSealer) throws(ProviderError) -> APNsRequest {
        try sealer.sealAPNs(content, key: key, options: self)
    }

    /// Seals a batch into ``APNsRequest``s (the sealer's hook).
    public static func _seal(
        batch items: [BatchItem<APNsOptions>], by sealer: NotificationSealer, keyProvider: (any CurrentKeyProvider)?,
        deliver: @Sendable (_ index: Int, _ result: consuming Result<APNsRequest, ProviderError>) -> Void
    ) {
        sealer.sealBatch(items, keyProvider: keyProvider, deliver: deliver) { (content, key, options) throws(ProviderError) in
            try sealer.sealAPNs(content, key: key, options: options)
        }
    }
}

extension FCMOptions: TransportOptions {
    /// Seals into an ``FCMMessage`` (the sealer's hook).
    public func _seal(_ content: NotificationContent, key: ConversationKey, by sealer: NotificationSealer) throws(ProviderError) -> FCMMessage {
        try sealer.sealFCM(content, key: key, options: self)
    }

    /// Seals a batch into ``FCMMessage``s (the sealer's hook).
    public static func _seal(
        batch items: [BatchItem<FCMOptions>], by sealer: NotificationSealer, keyProvider: (any CurrentKeyProvider)?,
        deliver: @Sendable (_ index: Int, _ result: consuming Result<FCMMessage, ProviderError>) -> Void
    ) {
        sealer.sealBatch(items, keyProvider: keyProvider, deliver: deliver) { (content, key, options) throws(ProviderError) in
            try sealer.sealFCM(content, key: key, options: options)
        }
    }
}
