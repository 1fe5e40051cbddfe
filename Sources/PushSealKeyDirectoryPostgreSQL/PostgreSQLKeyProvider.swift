public import PushSealCore
public import PushSealKeyDirectory

/// The provider's current keys from a shared PostgreSQL key directory: a `CachingKeyProvider`
/// invalidated by a ``KeyDirectoryListener``.
///
/// Staleness bound: a rotation committed on any node is used here no later than the
/// notification's delivery (milliseconds on a healthy server; the tests check ≤ 1 s) after the
/// commit while the listener is connected, and no later than `timeToLive` after it when a
/// notification is lost or the listening connection is down (after a reconnect every entry is
/// dropped).
public final class PostgreSQLKeyProvider: CurrentKeyProvider, Sendable {
    /// The cache (entries, invalidation).
    public let cache: CachingKeyProvider
    /// The change listener feeding it.
    public let listener: KeyDirectoryListener

    /// Caches `directory`'s current keys for at most `timeToLive` seconds and listens for changes
    /// on a dedicated connection to the same server.
    public init(directory: PostgreSQLKeyDirectory, timeToLive: Double = 5) throws(KeyDirectoryError) {
        let cache = CachingKeyProvider(directory: directory, timeToLive: timeToLive)
        self.cache = cache
        self.listener = try KeyDirectoryListener(uri: directory.uri.text, options: directory.options) { conversation in
            if let conversation { cache.invalidate(conversation: conversation) } else { cache.invalidateAll() }
        }
        // Keys cached before the listener listens would be bounded by the time to live only.
        listener.waitUntilListening(seconds: Double(directory.options.connectTimeoutSeconds))
    }

    deinit { listener.stop() }

    /// The current key of `conversation` (cached; see the staleness bound above).
    public func currentKey(conversation: String) throws -> ConversationKey {
        try cache.currentKey(conversation: conversation)
    }

    /// Stops the listener (the cache then relies on its time to live alone).
    public func stop() { listener.stop() }
}
