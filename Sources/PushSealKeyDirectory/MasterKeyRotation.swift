/// What a master-key rotation (`KeyDirectory.rotateMasterKey(to:)`) did.
public struct MasterKeyRotation: Sendable, Equatable {
    /// Keys sealed again under the new master key.
    public var resealedKeys: Int
    /// Identities (device key, provider key pairs, pinned provider keys, registered devices) sealed again.
    public var resealedIdentities: Int
    /// Duplicate-log entries deleted: they are keyed HMACs under a key derived from the old
    /// master key and cannot be carried over (replays of notifications opened before the
    /// rotation are no longer flagged duplicate; the freshness window still bounds them).
    public var clearedDeliveries: Int

    /// A rotation's figures (every key directory reports them).
    package init(resealedKeys: Int, resealedIdentities: Int, clearedDeliveries: Int) {
        (self.resealedKeys, self.resealedIdentities, self.clearedDeliveries) = (resealedKeys, resealedIdentities, clearedDeliveries)
    }
}
