import PushSealCore

/// A key source that cannot be read at all — for example the key store failed to open because
/// its master key is in a Keychain that is not available before first unlock. Every lookup is
/// `store_locked` (SPEC 10.2 step 6: a store that cannot read even its index reports
/// `store_locked` for every kid), so the user still sees the fallback text with that reason.
public struct UnavailableKeySource: ReceiverKeySource {
    /// Why the store cannot be read.
    public let reason: String

    /// A source that reports `reason` for every key.
    public init(reason: String) {
        self.reason = reason
    }

    /// Always `.locked(reason)`.
    public func lookupKey(_ id: KeyID) -> KeyLookupResult { .locked(reason) }

    /// Always `.unavailable(reason)` (never called in practice: nothing decrypts).
    public func markDelivered(conversation: String, messageID: String, envelope: [UInt8]) -> DeliveryRecord { .unavailable(reason) }
}
