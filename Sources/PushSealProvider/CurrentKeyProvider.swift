public import PushSealCore

/// Where the provider gets a conversation's current key: the key store (which conforms when the
/// packages are combined), a cache in front of it, or a fixed set of keys.
public protocol CurrentKeyProvider: Sendable {
    /// The key that new notifications of `conversation` are sealed under (the highest live
    /// epoch). Throw when there is none or the source cannot be read; the sealer reports it as
    /// ``ProviderError/keyUnavailable(conversation:detail:)``.
    func currentKey(conversation: String) throws -> ConversationKey
}

/// A fixed map from conversation id (compared by UTF-8 bytes) to its current key.
public struct FixedKeyProvider: CurrentKeyProvider {
    private let keys: [[UInt8]: ConversationKey]

    /// Keys by conversation id.
    public init(_ keys: [(conversation: String, key: ConversationKey)]) {
        var map: [[UInt8]: ConversationKey] = [:]
        for entry in keys { map[Array(entry.conversation.utf8)] = entry.key }
        self.keys = map
    }

    /// The key for `conversation`, or ``ProviderError/keyUnavailable(conversation:detail:)``.
    public func currentKey(conversation: String) throws -> ConversationKey {
        guard let key = keys[Array(conversation.utf8)] else {
            throw ProviderError.keyUnavailable(conversation: conversation, detail: "no key for this conversation")
        }
        return key
    }
}
