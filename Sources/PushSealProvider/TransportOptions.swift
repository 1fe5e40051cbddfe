import PushSealCore
import PushSealKeyDirectory

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
/// ``APNsOptions`` and ``FCMOptions`` are the only conformances: ``sealing`` has a type no other
/// module can make.
public protocol TransportOptions: Sendable {
    /// What sealing with these options makes: ``APNsRequest`` or ``FCMMessage``.
    associatedtype SealedRequest: Sendable

    /// Throws the first problem with these options (sealing checks them first).
    func validate() throws(ProviderError)

    /// How ``NotificationSealer`` seals for this transport. Opaque: it has no public members or
    /// initializers.
    static var sealing: TransportSealing<Self> { get }
}

/// How ``NotificationSealer`` seals for one transport (``TransportOptions/sealing``). It has no
/// public members or initializers: only PushSealProvider makes one, for ``APNsOptions`` and
/// ``FCMOptions``.
public struct TransportSealing<Options: TransportOptions>: Sendable {
    /// Seals `content` under `key` (content and options not yet validated).
    let sealOne: @Sendable (_ sealer: NotificationSealer, _ content: NotificationContent, _ key: ConversationKey, _ options: Options) throws(ProviderError) -> Options.SealedRequest

    /// Seals a batch, specialized for the transport.
    let sealBatch: @Sendable (
        _ sealer: NotificationSealer, _ items: [BatchItem<Options>], _ keyProvider: (any CurrentKeyProvider)?,
        _ deliver: @Sendable (_ index: Int, _ result: consuming Result<Options.SealedRequest, ProviderError>) -> Void) -> Void
}

extension APNsOptions: TransportOptions {
    /// APNs options seal into an ``APNsRequest``.
    public typealias SealedRequest = APNsRequest

    /// Seals into ``APNsRequest``s.
    public static let sealing = TransportSealing<APNsOptions>(
        sealOne: { (sealer, content, key, options) throws(ProviderError) in try sealer.sealAPNs(content, key: key, options: options) },
        sealBatch: { sealer, items, keyProvider, deliver in
            sealer.sealBatch(items, keyProvider: keyProvider, deliver: deliver) { (content, key, options) throws(ProviderError) in
                try sealer.sealAPNs(content, key: key, options: options)
            }
        })
}

extension FCMOptions: TransportOptions {
    /// FCM options seal into an ``FCMMessage``.
    public typealias SealedRequest = FCMMessage

    /// Seals into ``FCMMessage``s.
    public static let sealing = TransportSealing<FCMOptions>(
        sealOne: { (sealer, content, key, options) throws(ProviderError) in try sealer.sealFCM(content, key: key, options: options) },
        sealBatch: { sealer, items, keyProvider, deliver in
            sealer.sealBatch(items, keyProvider: keyProvider, deliver: deliver) { (content, key, options) throws(ProviderError) in
                try sealer.sealFCM(content, key: key, options: options)
            }
        })
}
