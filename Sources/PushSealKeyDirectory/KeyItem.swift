import PushSealCore

/// The metadata of one stored key — never the secret.
public struct KeyItem: Sendable, Equatable {
    /// The key's id (HKDF-Expand(K, "pushseal v1 key id", 16)).
    public let keyID: KeyID
    /// The conversation the key belongs to (compared by UTF-8 bytes).
    public let conversation: String
    /// The key's epoch within its conversation (grows by one per rotation).
    public let epoch: Int64
    /// A free-form label, if any.
    public let label: String?
    /// When the item was added, in seconds since 1970; for a key installed from a bundle, when its
    /// epoch started as far as the device knows: min(the bundle's since, the install time).
    public let createdAt: Int64
    /// The key's retire-by time: the last second (inclusive) it is live, in seconds since 1970;
    /// nil for no limit. After it the key is no longer current, receivers refuse notifications
    /// that claim a later sending time (`retired_key`), and `purgeExpired(gracePeriod:)`
    /// deletes it once the grace period has passed too.
    public let notAfter: Int64?

    /// Creates item metadata (the store creates these; public for tests and fakes).
    public init(keyID: KeyID, conversation: String, epoch: Int64, label: String?, createdAt: Int64, notAfter: Int64?) {
        self.keyID = keyID
        self.conversation = conversation
        self.epoch = epoch
        self.label = label
        self.createdAt = createdAt
        self.notAfter = notAfter
    }

    /// Whether the key is live at `now`: no not-after time, or `now <= notAfter`.
    public func isLive(at now: Int64) -> Bool {
        notAfter.map { now <= $0 } ?? true
    }
}

/// An unsealed key with its metadata.
public struct StoredKey: Sendable {
    /// The conversation key K.
    public let key: ConversationKey
    /// Its metadata.
    public let item: KeyItem

    /// Pairs a key with its metadata.
    public init(key: ConversationKey, item: KeyItem) {
        self.key = key
        self.item = item
    }
}

/// The receiver's three-way answer for a key id (SPEC §10.2 steps 5 and 6): the store holds the
/// key, does not hold it, or holds it but cannot produce it now.
public enum KeyLookup: Sendable {
    /// The key, unsealed and checked.
    case found(StoredKey)
    /// The store (readable) has no key with this id: `unknown_key`.
    case notFound
    /// The key cannot be produced now: the store is locked or unreadable, the master key is
    /// missing or wrong, or the item is corrupted: `store_locked`. Carries the cause.
    case unavailable(KeyDirectoryError)
}
