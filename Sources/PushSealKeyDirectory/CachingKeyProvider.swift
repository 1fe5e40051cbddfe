public import PushSealCore
internal import PushSealPlatform

/// Current keys from a `KeyDirectory` (the SQLite store or a shared PostgreSQL directory),
/// cached unsealed in memory for at most ``timeToLive`` seconds each. Without a cache, read
/// through a ``DirectoryKeyProvider``.
///
/// An entry is dropped (its key's zeroing storage released) when it expires, when
/// ``invalidate(conversation:)`` or ``invalidateAll()`` is called — by a change listener such as
/// the PostgreSQL directory's `LISTEN/NOTIFY` one — and never outlives the key's not-after time.
/// So a rotation committed elsewhere is used here no later than the listener's delivery delay
/// after the commit while it is connected, and no later than ``timeToLive`` after it otherwise
/// (a lost notification, a dropped connection). A lookup racing an invalidation never stores
/// the key it read before the invalidation.
public final class CachingKeyProvider: CurrentKeyProvider, @unchecked Sendable {
    /// The directory behind the cache.
    public let directory: any KeyDirectory
    /// The longest an entry is used, in seconds: the staleness bound when invalidations are lost.
    public let timeToLive: Double

    private struct Entry {
        var key: ConversationKey
        var expires: Double
    }

    private let lock = Lock()
    private var entries: [ConversationBytes: Entry] = [:]
    /// The highest epoch this cache has handed out per conversation (never lowered, never
    /// invalidated).
    private var highWater = EpochHighWaterMarks()
    /// Bumped by every invalidation: a lookup stores its result only if none happened meanwhile.
    private var generation: UInt64 = 0
    private let now: @Sendable () -> Double

    /// A cache in front of `directory`; entries live ``timeToLive`` seconds (default 5).
    public convenience init(directory: any KeyDirectory, timeToLive: Double = 5) {
        self.init(directory: directory, timeToLive: timeToLive, now: CachingKeyProvider.monotonicSeconds)
    }

    /// With an injected monotonic clock (tests).
    package init(directory: any KeyDirectory, timeToLive: Double, now: @escaping @Sendable () -> Double) {
        self.directory = directory
        self.timeToLive = max(0, timeToLive)
        self.now = now
    }

    /// The current key of `conversation`: the cached one while fresh, else the directory's
    /// (its `KeyDirectoryError` is thrown as it is, and nothing is cached). A directory answer below
    /// the highest epoch this cache already handed out for the conversation, or another key for
    /// that epoch (its rows and epoch record rolled back on the server, perhaps rotated since), is
    /// `KeyDirectoryError.rolledBack(conversation:epoch:highWater:)`:
    /// never sealed under. The mark lives as long as this instance (a fresh node cannot tell).
    public func currentKey(conversation: String) throws -> ConversationKey {
        let id = ConversationBytes(conversation)
        let time = now()
        let (cached, started) = lock.withLock { () -> (ConversationKey?, UInt64) in
            if let entry = entries[id] {
                if entry.expires > time { return (entry.key, generation) }
                entries[id] = nil
            }
            return (nil, generation)
        }
        if let cached { return cached }
        let stored = try directory.currentKey(conversation: conversation)
        var expires = time + timeToLive
        if let notAfter = stored.item.notAfter {
            // Never past the key's last live second (wall clock) converted to this monotonic clock.
            let remaining = Double(notAfter) + 1 - Double(systemClock())
            expires = min(expires, time + max(0, remaining))
        }
        let mark = lock.withLock { () -> Int64? in
            if let mark = highWater.raise(id, to: stored) { return mark }
            if generation == started { entries[id] = Entry(key: stored.key, expires: expires) }
            return nil
        }
        if let mark { throw KeyDirectoryError.rolledBack(conversation: conversation, epoch: stored.item.epoch, highWater: mark) }
        return stored.key
    }

    /// Drops `conversation`'s entry (a rotation or removal was committed).
    public func invalidate(conversation: String) {
        lock.withLock {
            generation &+= 1
            entries[ConversationBytes(conversation)] = nil
        }
    }

    /// Drops every entry (notifications may have been missed).
    public func invalidateAll() {
        lock.withLock {
            generation &+= 1
            entries.removeAll()
        }
    }

    /// How many conversations are cached now.
    public var count: Int { lock.withLock { entries.count } }

    @Sendable static func monotonicSeconds() -> Double { MonotonicClock.seconds() }
}
