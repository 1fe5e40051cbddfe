public import PushSealCore
internal import PushSealPlatform

/// Current keys read through from a `KeyDirectory` (the SQLite directory or a shared PostgreSQL
/// one): every lookup is one read of the directory, so a rotation is used from the next lookup
/// on. Nothing is cached; put a ``CachingKeyProvider`` in front of the directory instead when
/// sealing at a high rate for few conversations.
///
/// A directory answer below the highest epoch this provider already handed out for the
/// conversation, or another key for that epoch, is
/// `KeyDirectoryError.rolledBack(conversation:epoch:highWater:)`: never sealed under. The mark
/// lives as long as this instance.
public final class DirectoryKeyProvider: CurrentKeyProvider, @unchecked Sendable {
    /// The directory read on every lookup.
    public let directory: any KeyDirectory

    private let lock = Lock()
    private var highWater = EpochHighWaterMarks()

    /// Reads current keys from `directory`.
    public init(directory: any KeyDirectory) {
        self.directory = directory
    }

    /// The directory's current key of `conversation`; its `KeyDirectoryError` is thrown as it is
    /// (item not found, locked, corrupted, …), which the sealer reports as `keyUnavailable`.
    public func currentKey(conversation: String) throws -> ConversationKey {
        let stored = try directory.currentKey(conversation: conversation)
        let mark = lock.withLock { highWater.raise(ConversationBytes(conversation), to: stored) }
        if let mark { throw KeyDirectoryError.rolledBack(conversation: conversation, epoch: stored.item.epoch, highWater: mark) }
        return stored.key
    }
}
