import PushSealCore

/// The receiver's duplicate log (SPEC §10.4): HMACs of (cid, mid) with the time first seen.
extension KeyStore {
    /// Atomically checks and records (conversation, messageID) at `clock()`: one `BEGIN IMMEDIATE`
    /// transaction with `INSERT OR IGNORE`. Returns true when the pair was already recorded (the
    /// first recording time is kept). Only an HMAC of the pair under a store-derived key is
    /// stored, never the ids.
    ///
    /// With `retention`, entries recorded more than `retention` seconds ago are deleted in the same
    /// transaction (receivers pass their freshness window, maxAge + maxFutureSkew: anything older
    /// would be rejected as stale before the log is consulted).
    public func recordDelivery(
        conversation: String, messageID: String, pruningOlderThan retention: Int64? = nil
    ) throws(KeyStoreError) -> Bool {
        if let retention, retention < 0 { throw .invalidArgument("retention \(retention) is negative") }
        let tag = ItemSealing.deliveryTag(conversation: conversation, messageID: messageID, logKey: deliveryLogKey)
        let now = clock()
        return try session(.write) { connection throws(KeyStoreError) -> Bool in
            if let retention {
                try connection.withStatement("DELETE FROM deliveries WHERE seen_at < ?1") { statement throws(KeyStoreError) in
                    let (cutoff, overflow) = now.subtractingReportingOverflow(retention)
                    try statement.bind(1, overflow ? Int64.min : cutoff)
                    _ = try statement.step()
                }
            }
            try connection.withStatement("INSERT OR IGNORE INTO deliveries (tag, seen_at) VALUES (?1, ?2)") { statement throws(KeyStoreError) in
                try statement.bind(1, blob: tag)
                try statement.bind(2, now)
                _ = try statement.step()
            }
            return connection.changes == 0
        }
    }

    /// Whether (conversation, messageID) is in the duplicate log, without recording it.
    public func hasDelivery(conversation: String, messageID: String) throws(KeyStoreError) -> Bool {
        let tag = ItemSealing.deliveryTag(conversation: conversation, messageID: messageID, logKey: deliveryLogKey)
        return try session(.read) { connection throws(KeyStoreError) -> Bool in
            try connection.withStatement("SELECT 1 FROM deliveries WHERE tag = ?1") { statement throws(KeyStoreError) in
                try statement.bind(1, blob: tag)
                return try statement.step()
            }
        }
    }

    /// Deletes duplicate-log entries recorded more than `seconds` ago (`seen_at < now - seconds`);
    /// returns how many. Receivers use their freshness window (maxAge + maxFutureSkew).
    @discardableResult
    public func pruneDeliveries(olderThan seconds: Int64) throws(KeyStoreError) -> Int {
        guard seconds >= 0 else { throw .invalidArgument("age \(seconds) is negative") }
        let (difference, overflow) = clock().subtractingReportingOverflow(seconds)
        let cutoff = overflow ? Int64.min : difference
        return try session(.write) { connection throws(KeyStoreError) -> Int in
            try connection.withStatement("DELETE FROM deliveries WHERE seen_at < ?1") { statement throws(KeyStoreError) in
                try statement.bind(1, cutoff)
                _ = try statement.step()
            }
            return connection.changes
        }
    }

    /// Number of entries in the duplicate log.
    public func deliveryCount() throws(KeyStoreError) -> Int {
        try session(.read) { connection throws(KeyStoreError) -> Int in
            try connection.withStatement("SELECT count(*) FROM deliveries") { statement throws(KeyStoreError) in
                _ = try statement.step()
                return Int(statement.int64(0))
            }
        }
    }
}
