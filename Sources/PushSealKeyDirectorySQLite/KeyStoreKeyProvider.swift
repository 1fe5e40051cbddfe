public import PushSealCore
public import PushSealKeyDirectory
public import PushSealKeyStore

/// The provider's key directory on SQLite as a `CurrentKeyProvider`: each conversation's current
/// key (its highest live epoch) from a ``SQLiteKeyDirectory``.
///
/// Every lookup is one short read transaction on the store file; a backend sealing at a high rate
/// for few conversations can put a `CachingKeyProvider` in front of the directory instead.
public struct KeyStoreKeyProvider: CurrentKeyProvider {
    /// The key directory.
    public let directory: SQLiteKeyDirectory

    /// Serves current keys from `directory`.
    public init(directory: SQLiteKeyDirectory) {
        self.directory = directory
    }

    /// Serves current keys from the directory in the store file `store` has open.
    public init(store: DeviceKeyStore) {
        self.directory = SQLiteKeyDirectory(store: store)
    }

    /// The current key of `conversation`; throws the directory's `KeyDirectoryError` (item not
    /// found, locked, corrupted, …), which the sealer reports as `keyUnavailable`.
    public func currentKey(conversation: String) throws -> ConversationKey {
        try directory.currentKey(conversation: conversation).key
    }
}
