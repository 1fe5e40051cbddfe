public import PushSealCore

/// Where the provider gets a conversation's current key: a key directory, read through on every
/// lookup (``DirectoryKeyProvider``) or cached (``CachingKeyProvider``; on PostgreSQL,
/// `PostgreSQLKeyProvider` also invalidates the cache on every change), or a fixed set of keys
/// (`FixedKeyProvider`, module PushSealProvider).
public protocol CurrentKeyProvider: Sendable {
    /// The key that new notifications of `conversation` are sealed under (the highest live
    /// epoch). Throw when there is none or the source cannot be read; the sealer reports it as
    /// `ProviderError.keyUnavailable(conversation:detail:)`.
    func currentKey(conversation: String) throws -> ConversationKey
}
