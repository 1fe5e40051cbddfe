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

/// The high-water marks of a key provider, one per conversation it has handed a key out for
/// (never lowered, never forgotten while the provider lives). Not locked: the provider holds
/// its own lock around it.
struct EpochHighWaterMarks {
    private var marks: [ConversationBytes: EpochHighWater] = [:]

    /// Raises `conversation`'s mark to `stored`, or returns the mark's epoch (and leaves it) when
    /// `stored` is below it or another key for its epoch: a rolled-back directory.
    mutating func raise(_ conversation: ConversationBytes, to stored: StoredKey) -> Int64? {
        if let mark = marks[conversation], mark.isRolledBack(by: stored) { return mark.epoch }
        marks[conversation] = EpochHighWater(stored)
        return nil
    }
}
