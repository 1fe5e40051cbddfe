public import PushSealCore
public import PushSealKeyDirectory

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
