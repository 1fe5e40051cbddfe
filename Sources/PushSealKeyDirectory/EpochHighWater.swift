import PushSealCore

/// The highest epoch (and its key id) a key provider has handed out for one conversation: a
/// directory that later answers with a lower epoch, or with another key for that epoch, was
/// rolled back (its rows and epoch record put back from an older copy).
struct EpochHighWater {
    var epoch: Int64
    var keyID: KeyID

    /// The mark `stored` sets.
    init(_ stored: StoredKey) {
        self.epoch = stored.item.epoch
        self.keyID = stored.item.keyID
    }

    /// True when `stored` is below this mark, or another key for its epoch.
    func isRolledBack(by stored: StoredKey) -> Bool {
        stored.item.epoch < epoch || (stored.item.epoch == epoch && stored.item.keyID != keyID)
    }
}
