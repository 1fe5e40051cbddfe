import PushSealCore
import PushSealKeyDirectory

/// The provider's key directory as a `CurrentKeyProvider`: each conversation's current key
/// (its highest live epoch) from a `KeyStore` of the PushSealKeyStore module.
///
/// Every lookup is one short read transaction on the store file; a backend sealing at a high rate
/// for few conversations can cache keys in a ``FixedKeyProvider`` and refresh it on rotation.
public struct KeyStoreKeyProvider: CurrentKeyProvider {
    /// The key directory.
    public let store: KeyStore

    /// Serves current keys from `store`.
    public init(store: KeyStore) {
        self.store = store
    }

    /// The current key of `conversation`; throws the store's `KeyDirectoryError` (item not found,
    /// locked, corrupted, …), which the sealer reports as `keyUnavailable`.
    public func currentKey(conversation: String) throws -> ConversationKey {
        try store.currentKey(conversation: conversation).key
    }
}
